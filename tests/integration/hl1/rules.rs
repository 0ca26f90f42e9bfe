//! One test per rule of `docs/formats/hl1.md` § Validation.

use core::mem::offset_of;

use skelmap::hl1::raw::{Bone, Model, SeqDesc, StudioHdr, Trivert};
use skelmap::hl1::{Builder, Hl1};
use skelmap::{Error, Format, Model as AnyModel, Parse, Problem, WarningKind};

use super::{err, example, get_i32, invalid, put_i32};

#[test]
fn rule_1_version_10() {
    let mut b = example();
    put_i32(&mut b, 4, 11);
    assert!(matches!(
        err(&b),
        Error::Unsupported {
            format: Format::Hl1,
            what: "header.version",
            offset: 4,
            value: 11,
            ..
        }
    ));
}

#[test]
fn rule_1_a_sequence_group_alone_is_named_a_companion() {
    let group = Builder::example().write_group(1).unwrap();
    assert!(matches!(
        AnyModel::from_bytes(&group),
        Err(Error::Unsupported {
            format: Format::Hl1,
            what: "header.id",
            ..
        })
    ));
}

/// A sequence group checked against its model (`Hl1::check_group`, what opening the model
/// with its companions does): it passes as written; a fault of rule 6 in it is named at its
/// offset in the group's bytes; a file that is not `IDSQ` is refused by its magic; and for a
/// group the model does not declare, only the header is checked.
#[test]
fn rule_6_a_sequence_group_is_checked_against_its_model() {
    let b = super::apart(); // its last sequence in group 1
    let model = b.write().unwrap();
    let model = Hl1::parse(&model).unwrap();
    let limits = skelmap::Limits::default();
    let check = |group: &[u8], g: usize| {
        let mut diag = skelmap::Diagnostics::new();
        model
            .check_group(group, g, &limits, &mut diag)
            .map(|()| diag)
    };
    let group = b.write_group(1).unwrap();
    assert!(check(&group, 1).unwrap().is_empty());
    // The first run of the first animated channel: its `total` zeroed.
    let header = size_of::<skelmap::hl1::raw::StudioSeqHdr>();
    let record = &group[header..header + 12];
    let offset = (0..6)
        .map(|j| u16::from_le_bytes([record[2 * j], record[2 * j + 1]]) as usize)
        .find(|&o| o != 0)
        .unwrap();
    let mut broken = group.clone();
    broken[header + offset + 1] = 0;
    assert_eq!(
        invalid(&check(&broken, 1).unwrap_err()),
        (
            Format::Hl1,
            "animvalue.total",
            (header + offset + 1) as u64,
            Problem::Empty
        )
    );
    assert!(matches!(
        check(&b.write().unwrap(), 1),
        Err(Error::BadMagic {
            format: Format::Hl1,
            ..
        })
    ));
    // Group 2 holds no sequence of the model: the broken runs are not read.
    assert!(check(&broken, 2).unwrap().is_empty());
    assert!(check(&broken, usize::MAX).unwrap().is_empty());
    // Short of its header, any group is refused.
    assert!(matches!(
        check(&group[..40], 2),
        Err(Error::Truncated {
            format: Format::Hl1,
            ..
        })
    ));
}

/// A sequence group's name leads back to its model's, for the groups a model can have.
#[test]
fn rule_6_a_sequence_groups_name_gives_its_model() {
    use skelmap::hl1::{MAX_GROUP_FILES, group_model, group_path};
    for g in 1..=MAX_GROUP_FILES {
        for model in [
            "man.mdl",
            "dir/sub/scientist.MDL",
            "C:\\hl\\barney.mdl",
            "noext",
        ] {
            assert_eq!(
                group_model(&group_path(model, g)),
                Some((model.to_string(), g))
            );
        }
    }
    for other in [
        "man.mdl",
        "man00.mdl",
        "man16.mdl",
        "man1.mdl",
        "dir/01.mdl",
        "man0a.mdl",
        "man٠١.mdl",
        "",
    ] {
        assert_eq!(group_model(other), None, "{other}");
    }
}

#[test]
fn rule_2_declared_length() {
    let mut b = example();
    let len = b.len() as i32;
    put_i32(&mut b, offset_of!(StudioHdr, length), len + 1);
    assert!(matches!(
        err(&b),
        Error::Truncated {
            format: Format::Hl1,
            ..
        }
    ));
}

#[test]
fn rule_3_counts_not_negative() {
    let mut b = example();
    put_i32(&mut b, offset_of!(StudioHdr, numbones), -1);
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "header.numbones",
            offset_of!(StudioHdr, numbones) as u64,
            Problem::Negative { value: -1 }
        )
    );
}

#[test]
fn rule_4_parents_before_children() {
    let mut b = example();
    let bones = get_i32(&b, offset_of!(StudioHdr, boneindex)) as usize;
    let at = bones + size_of::<Bone>() + offset_of!(Bone, parent);
    put_i32(&mut b, at, 1);
    let (format, what, offset, _) = invalid(&err(&b));
    assert_eq!(
        (format, what, offset),
        (Format::Hl1, "bone.parent", at as u64)
    );
}

#[test]
fn rule_4_bone_values_finite() {
    let mut b = example();
    let bones = get_i32(&b, offset_of!(StudioHdr, boneindex)) as usize;
    let at = bones + offset_of!(Bone, scale) + 8;
    b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    assert_eq!(
        invalid(&err(&b)),
        (Format::Hl1, "bone.scale", at as u64, Problem::NotFinite)
    );
    // A bone's values are named before its scales, wherever each fault stands.
    let value = bones + offset_of!(Bone, value) + 16;
    b[value..value + 4].copy_from_slice(&f32::NEG_INFINITY.to_le_bytes());
    assert_eq!(
        invalid(&err(&b)),
        (Format::Hl1, "bone.value", value as u64, Problem::NotFinite)
    );
}

/// Fuzz crash `hl1/crash-98e52b34`: a finite scale so large that a decoded channel
/// (`value + v · scale`) overflowed to infinity and a sampled pose was not finite.
#[test]
fn rule_4_a_scale_whose_decoded_channel_overflows_is_refused() {
    let mut b = example();
    let bones = get_i32(&b, offset_of!(StudioHdr, boneindex)) as usize;
    let at = bones + offset_of!(Bone, scale) + 4;
    b[at..at + 4].copy_from_slice(&1e35f32.to_le_bytes());
    assert_eq!(
        invalid(&err(&b)),
        (Format::Hl1, "bone.scale", at as u64, Problem::NotFinite)
    );
}

/// A controller whose end, added to the channel it drives at its largest decoded value,
/// overflows: refused at the controller, so that no setting makes a pose infinite.
#[test]
fn rule_4_a_controller_whose_adjusted_channel_overflows_is_refused() {
    use skelmap::hl1::ControllerDef;
    use skelmap::hl1::raw::{BoneController, STUDIO_X};
    let mut builder = Builder::example();
    builder.bones[0].value[0] = 1e37;
    let mut controller = ControllerDef {
        bone: 0,
        type_: STUDIO_X,
        start: 0.0,
        end: 3.0e38,
        index: 0,
    };
    builder.controllers = vec![controller];
    // Within f32: 1e37 + 0.5 · 32768 + 3e38 + 360.
    assert!(Hl1::parse(&builder.write().unwrap()).is_ok());
    controller.end = 3.4e38;
    builder.controllers = vec![controller];
    let b = builder.write().unwrap();
    let at = get_i32(&b, offset_of!(StudioHdr, bonecontrollerindex)) as usize
        + offset_of!(BoneController, start);
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "bonecontroller.start",
            at as u64,
            Problem::NotFinite
        )
    );
}

#[test]
fn rule_5_sequence_group_in_range() {
    let mut b = example();
    let seqs = get_i32(&b, offset_of!(StudioHdr, seqindex)) as usize;
    let at = seqs + offset_of!(SeqDesc, seqgroup);
    put_i32(&mut b, at, 3);
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "seqdesc.seqgroup",
            at as u64,
            Problem::Index { index: 3, len: 1 }
        )
    );
}

#[test]
fn rule_5_sequence_has_frames() {
    let mut b = example();
    let seqs = get_i32(&b, offset_of!(StudioHdr, seqindex)) as usize;
    let at = seqs + offset_of!(SeqDesc, numframes);
    put_i32(&mut b, at, 0);
    assert_eq!(
        invalid(&err(&b)),
        (Format::Hl1, "seqdesc.numframes", at as u64, Problem::Empty)
    );
}

/// The first run of the `turn` sequence's root X channel: its header's offset.
fn first_run(b: &[u8]) -> usize {
    let seqs = get_i32(b, offset_of!(StudioHdr, seqindex)) as usize;
    let turn = seqs + size_of::<SeqDesc>();
    let anim = get_i32(b, turn + offset_of!(SeqDesc, animindex)) as usize;
    let offset = u16::from_le_bytes([b[anim], b[anim + 1]]) as usize;
    assert_ne!(offset, 0);
    anim + offset
}

/// assimp #6616: a run of `total == 0` makes its walk loop forever; here it is an error.
#[test]
fn rule_6_anim_run_of_total_zero_is_refused_not_looped() {
    let mut b = example();
    let run = first_run(&b);
    b[run + 1] = 0;
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "animvalue.total",
            run as u64 + 1,
            Problem::Empty
        )
    );
    // The decoder alone, on such bytes, stops too.
    assert_eq!(skelmap::hl1::channel_value(&b, run, 3), None);
}

#[test]
fn rule_6_anim_run_of_valid_zero() {
    let mut b = example();
    let run = first_run(&b);
    b[run] = 0;
    assert_eq!(
        invalid(&err(&b)),
        (Format::Hl1, "animvalue.valid", run as u64, Problem::Empty)
    );
}

#[test]
fn rule_6_anim_run_valid_above_total() {
    let mut b = example();
    let run = first_run(&b);
    let total = b[run + 1];
    b[run] = total + 1;
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "animvalue.valid",
            run as u64,
            Problem::AboveMaximum {
                value: u64::from(total) + 1,
                max: u64::from(total)
            }
        )
    );
}

#[test]
fn rule_6_anim_runs_in_bounds() {
    let mut b = example();
    let seqs = get_i32(&b, offset_of!(StudioHdr, seqindex)) as usize;
    let turn = seqs + size_of::<SeqDesc>();
    let anim = get_i32(&b, turn + offset_of!(SeqDesc, animindex)) as usize;
    b[anim..anim + 2].copy_from_slice(&0xfff0u16.to_le_bytes());
    assert!(matches!(
        err(&b),
        Error::Truncated {
            format: Format::Hl1,
            what: "animvalue",
            ..
        }
    ));
}

/// A record whose channels are one run each passes without a walk; a channel of several
/// runs is walked to its end, and a fault in a later run is named there, whatever the
/// record's other channels are.
#[test]
fn rule_6_a_channel_of_several_runs_is_walked_to_its_end() {
    let mut builder = Builder::example();
    let bones = builder.bones.len();
    // Bone 0's X: 0, 0, 5, 5 (two runs of one value and one repeat); every other channel
    // one value repeated (one run).
    builder.sequences[0].frames = [0i16, 0, 5, 5]
        .iter()
        .map(|&x| {
            (0..bones)
                .map(|bone| {
                    if bone == 0 {
                        [x, 1, 2, 3, 4, 5]
                    } else {
                        [7; 6]
                    }
                })
                .collect()
        })
        .collect();
    let mut b = builder.write().unwrap();
    Hl1::parse(&b).unwrap();
    let seqs = get_i32(&b, offset_of!(StudioHdr, seqindex)) as usize;
    let anim = get_i32(&b, seqs + offset_of!(SeqDesc, animindex)) as usize;
    let run = anim + u16::from_le_bytes([b[anim], b[anim + 1]]) as usize;
    assert_eq!(
        b[run..run + 2],
        [1, 2],
        "the first run: one value, two frames"
    );
    let second = run + 4;
    assert_eq!(b[second..second + 2], [1, 2], "the second run");
    b[second] = 0;
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "animvalue.valid",
            second as u64,
            Problem::Empty
        )
    );
}

/// `n` bones, each the child of the one before, at rest at the origin.
fn chain_of_bones(n: i32) -> Vec<skelmap::hl1::BoneDef> {
    (0..n)
        .map(|i| skelmap::hl1::BoneDef {
            name: format!("bone{i}"),
            parent: i - 1,
            value: [0.0; 6],
            scale: [0.01; 6],
        })
        .collect()
}

/// A model of 40 bones whose 240 channels are each ten runs (a value held two frames, then
/// the next): more chains than validation walks side by side in one step, each longer than
/// one run. Such a model passes; a fault in any run of any chain is named at its offset, and
/// of two faults, the one in the earlier channel.
#[test]
fn rule_6_many_chains_of_many_runs_are_each_walked_to_their_ends() {
    let mut builder = Builder::example();
    builder.bones = chain_of_bones(40);
    builder.sequences.truncate(1);
    builder.sequences[0].frames = (0..20i16)
        .map(|f| (0..40i16).map(|bone| [f / 2 + bone; 6]).collect())
        .collect();
    let b = builder.write().unwrap();
    Hl1::parse(&b).unwrap();
    let seqs = get_i32(&b, offset_of!(StudioHdr, seqindex)) as usize;
    let anim = get_i32(&b, seqs + offset_of!(SeqDesc, animindex)) as usize;
    // Channel `c` of bone `bone`: its record's offset, from the record.
    let chain = |bone: usize, c: usize| {
        let record = anim + 12 * bone;
        record + u16::from_le_bytes([b[record + 2 * c], b[record + 2 * c + 1]]) as usize
    };
    for (bone, c) in [(0, 0), (17, 3), (39, 5)] {
        let start = chain(bone, c);
        for run in 0..10 {
            assert_eq!(
                b[start + 4 * run..start + 4 * run + 2],
                [1, 2],
                "{bone} {c} {run}"
            );
        }
    }
    let last_run = |bone, c| chain(bone, c) + 4 * 9;
    for (bone, c) in [(0, 0), (17, 3), (39, 5)] {
        let mut broken = b.clone();
        broken[last_run(bone, c)] = 0;
        assert_eq!(
            invalid(&err(&broken)),
            (
                Format::Hl1,
                "animvalue.valid",
                last_run(bone, c) as u64,
                Problem::Empty
            )
        );
    }
    let mut broken = b.clone();
    broken[last_run(39, 5) + 1] = 0;
    broken[chain(30, 1) + 4 * 4] = 3;
    assert_eq!(
        invalid(&err(&broken)),
        (
            Format::Hl1,
            "animvalue.valid",
            chain(30, 1) as u64 + 16,
            Problem::AboveMaximum { value: 3, max: 2 }
        )
    );
}

/// The chains of every sequence of a file are judged together: sequences of unequal lengths
/// (a channel of one run beside one of many, as real models have) pass, and a fault in any
/// sequence's chain, the first or the last, is named at its offset; of faults in two
/// sequences, the one in the earlier sequence.
#[test]
fn rule_6_the_chains_of_every_sequence_are_judged_together() {
    let mut builder = Builder::example();
    builder.bones = chain_of_bones(20);
    // Sequence `s` of `4 + 3s` frames; bone `bone`'s channels change every `1 + bone % 3`
    // frames, bone 0's not at all.
    let template = builder.sequences[0].clone();
    builder.sequences = (0..12i16)
        .map(|s| skelmap::hl1::SequenceDef {
            label: format!("seq{s}"),
            frames: (0..4 + 3 * s)
                .map(|f| {
                    (0..20i16)
                        .map(|bone| match bone {
                            0 => [s; 6],
                            _ => [f / (1 + bone % 3) + bone; 6],
                        })
                        .collect()
                })
                .collect(),
            ..template.clone()
        })
        .collect();
    let b = builder.write().unwrap();
    assert_eq!(Hl1::parse(&b).unwrap().sequences().len(), 12);
    let seqs = get_i32(&b, offset_of!(StudioHdr, seqindex)) as usize;
    // Sequence `s`, bone `bone`, channel `c`: where its chain starts.
    let chain = |s: usize, bone: usize, c: usize| {
        let anim = get_i32(
            &b,
            seqs + s * size_of::<SeqDesc>() + offset_of!(SeqDesc, animindex),
        );
        let record = anim as usize + 12 * bone;
        record + u16::from_le_bytes([b[record + 2 * c], b[record + 2 * c + 1]]) as usize
    };
    for (s, bone, c) in [(0, 1, 0), (5, 7, 2), (11, 19, 5)] {
        let run = chain(s, bone, c);
        let mut broken = b.clone();
        broken[run] = 0;
        assert_eq!(
            invalid(&err(&broken)),
            (Format::Hl1, "animvalue.valid", run as u64, Problem::Empty),
            "{s} {bone} {c}"
        );
    }
    let mut broken = b.clone();
    broken[chain(11, 1, 0)] = 0;
    broken[chain(3, 19, 4) + 1] = 0;
    assert_eq!(
        invalid(&err(&broken)),
        (
            Format::Hl1,
            "animvalue.total",
            chain(3, 19, 4) as u64 + 1,
            Problem::Empty
        )
    );
}

/// The first model of the first body part, and its first mesh's commands.
fn model_at(b: &[u8]) -> usize {
    let parts = get_i32(b, offset_of!(StudioHdr, bodypartindex)) as usize;
    get_i32(b, parts + 72) as usize
}

fn tricmds_at(b: &[u8]) -> usize {
    let model = model_at(b);
    let meshes = get_i32(b, model + offset_of!(Model, meshindex)) as usize;
    get_i32(b, meshes + 4) as usize
}

#[test]
fn rule_7_vertex_bones_in_range() {
    let mut b = example();
    let info = get_i32(&b, model_at(&b) + offset_of!(Model, vertinfoindex)) as usize;
    b[info + 2] = 2;
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "vertinfo",
            info as u64 + 2,
            Problem::Index { index: 2, len: 2 }
        )
    );
}

#[test]
fn rule_9_command_of_fewer_than_3_vertices() {
    let mut b = example();
    let at = tricmds_at(&b);
    b[at..at + 2].copy_from_slice(&(-2i16).to_le_bytes());
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "tricmd.count",
            at as u64,
            Problem::BelowMinimum { value: 2, min: 3 }
        )
    );
}

#[test]
fn rule_9_trivert_indices_in_range() {
    let mut b = example();
    let at = tricmds_at(&b) + 2 + size_of::<Trivert>();
    b[at..at + 2].copy_from_slice(&5i16.to_le_bytes());
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "trivert.vertindex",
            at as u64,
            Problem::Index { index: 5, len: 5 }
        )
    );
    let mut b = example();
    let at = tricmds_at(&b) + 2 + offset_of!(Trivert, normindex);
    b[at..at + 2].copy_from_slice(&(-1i16).to_le_bytes());
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "trivert.normindex",
            at as u64,
            Problem::Index { index: -1, len: 2 }
        )
    );
}

/// Rule 9 on a command long enough for the trivert scan (60 vertices): the first index out
/// of range is named, wherever it is.
#[test]
fn rule_9_trivert_indices_in_range_in_a_scanned_command() {
    use skelmap::hl1::{CommandDef, TrivertDef};
    let mut builder = Builder::example();
    let model = &mut builder.bodyparts[0].models[0];
    let (verts, norms) = (model.vertices.len() as i16, model.normals.len() as i16);
    model.meshes[0].commands = vec![CommandDef {
        fan: false,
        vertices: (0..60)
            .map(|k: i16| TrivertDef {
                vertex: k % verts,
                normal: k % norms,
                s: 0,
                t: 0,
            })
            .collect(),
    }];
    let clean = builder.write().unwrap();
    Hl1::parse(&clean).unwrap();
    let trivert = |k: usize| tricmds_at(&clean) + 2 + size_of::<Trivert>() * k;
    for k in [0, 31, 59] {
        let cases = [
            (0, verts, "trivert.vertindex", i64::from(verts)),
            (0, -1, "trivert.vertindex", -1),
            (2, norms, "trivert.normindex", i64::from(norms)),
            (2, i16::MIN, "trivert.normindex", i64::from(i16::MIN)),
        ];
        for (field, value, what, index) in cases {
            let mut b = clean.clone();
            let at = trivert(k) + field;
            b[at..at + 2].copy_from_slice(&value.to_le_bytes());
            // A second fault after it: the first is named.
            let later = trivert(59.min(k + 1));
            b[later..later + 2].copy_from_slice(&(-7i16).to_le_bytes());
            let len = if field == 0 { verts } else { norms };
            let problem = Problem::Index {
                index,
                len: len as u64,
            };
            let want = (Format::Hl1, what, at as u64, problem);
            if later > at {
                assert_eq!(invalid(&err(&b)), want, "trivert {k}");
            }
            let mut b = clean.clone();
            b[at..at + 2].copy_from_slice(&value.to_le_bytes());
            assert_eq!(invalid(&err(&b)), want, "trivert {k}");
        }
    }
}

/// Rule 9 on a mesh of many short commands (which validation proves in one walk with their
/// indices scanned): the vertex and triangle counts, and where a command fails, the first
/// fault in the file's order, an index or a count, whatever follows it.
#[test]
fn rule_9_the_first_fault_among_many_commands() {
    use skelmap::hl1::{CommandDef, TrivertDef};
    let mut builder = Builder::example();
    let model = &mut builder.bodyparts[0].models[0];
    let (verts, norms) = (model.vertices.len() as i16, model.normals.len() as i16);
    let lengths: [usize; 7] = [3, 5, 4, 9, 3, 12, 7];
    // The example's other meshes' vertices and triangles.
    let bytes = example();
    let example = Hl1::parse(&bytes).unwrap();
    let old = &model.meshes[0].commands;
    let old_vertices: usize = old.iter().map(|c| c.vertices.len()).sum();
    let others = (
        example.num_vertices() - old_vertices,
        example.num_triangles() - (old_vertices - 2 * old.len()),
    );
    model.meshes[0].commands = lengths
        .iter()
        .enumerate()
        .map(|(c, &n)| CommandDef {
            fan: c % 2 == 1,
            vertices: (0..n as i16)
                .map(|k| TrivertDef {
                    vertex: k % verts,
                    normal: k % norms,
                    s: 0,
                    t: 0,
                })
                .collect(),
        })
        .collect();
    let clean = builder.write().unwrap();
    let vertices: usize = lengths.iter().sum();
    let parsed = Hl1::parse(&clean).unwrap();
    assert_eq!(parsed.num_vertices(), others.0 + vertices);
    assert_eq!(
        parsed.num_triangles(),
        others.1 + vertices - 2 * lengths.len()
    );
    // Command `c`'s count, and its trivert `k`'s field at `field`.
    let command = |c: usize| {
        tricmds_at(&clean)
            + lengths[..c]
                .iter()
                .map(|n| 2 + size_of::<Trivert>() * n)
                .sum::<usize>()
    };
    let trivert =
        |c: usize, k: usize, field: usize| command(c) + 2 + size_of::<Trivert>() * k + field;
    let index = |at: usize, what, value: i16, len: i16| {
        let problem = Problem::Index {
            index: value.into(),
            len: len as u64,
        };
        (Format::Hl1, what, at as u64, problem)
    };
    let short = |c: usize| {
        let problem = Problem::BelowMinimum { value: 2, min: 3 };
        (Format::Hl1, "tricmd.count", command(c) as u64, problem)
    };
    let put = |b: &mut Vec<u8>, at: usize, value: i16| {
        b[at..at + 2].copy_from_slice(&value.to_le_bytes());
    };
    // An index in command 3, then a count of 2 in command 5: the index.
    let mut b = clean.clone();
    put(&mut b, trivert(3, 8, 0), verts);
    put(&mut b, command(5), -2);
    let want = index(trivert(3, 8, 0), "trivert.vertindex", verts, verts);
    assert_eq!(invalid(&err(&b)), want);
    // A count of 2 in command 2, then an index in command 3: the count.
    let mut b = clean.clone();
    put(&mut b, command(2), 2);
    put(&mut b, trivert(3, 0, 2), -1);
    assert_eq!(invalid(&err(&b)), short(2));
    // A normal index in the last command alone.
    let mut b = clean.clone();
    put(&mut b, trivert(6, 6, 2), norms);
    let want = index(trivert(6, 6, 2), "trivert.normindex", norms, norms);
    assert_eq!(invalid(&err(&b)), want);
}

#[test]
fn rule_9_commands_end_within_the_file() {
    let mut b = example();
    // The last mesh's terminating 0 is the last command word before the textures; cutting
    // the file's declared length inside the commands truncates them.
    let at = tricmds_at(&b);
    b.truncate(at + 10);
    let len = b.len() as i32;
    put_i32(&mut b, offset_of!(StudioHdr, length), len);
    assert!(matches!(
        err(&b),
        Error::Truncated {
            format: Format::Hl1,
            ..
        }
    ));
}

#[test]
fn rule_10_skin_table_names_textures() {
    let mut b = example();
    let skins = get_i32(&b, offset_of!(StudioHdr, skinindex)) as usize;
    b[skins + 2..skins + 4].copy_from_slice(&7i16.to_le_bytes());
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "skin",
            skins as u64 + 2,
            Problem::Index { index: 7, len: 2 }
        )
    );
}

#[test]
fn the_example_validates_and_every_truncation_is_an_error() {
    let b = example();
    let view = Hl1::parse(&b).unwrap();
    skelmap_testkit::exercise::hl1(&view);
    for len in 0..b.len() {
        let mut cut = b[..len].to_vec();
        if cut.len() >= 80 {
            put_i32(&mut cut, offset_of!(StudioHdr, length), len as i32);
        }
        assert!(Hl1::parse(&cut).is_err(), "{len}");
    }
    // Every byte flipped: an error or a view whose every accessor holds.
    for at in 0..b.len() {
        let mut flipped = b.clone();
        flipped[at] ^= 0xa5;
        if let Ok(model) = AnyModel::from_bytes(&flipped) {
            skelmap_testkit::exercise::model(&model);
        }
    }
}

#[test]
fn rule_3_counts_within_limits() {
    let b = example();
    let limits = skelmap::Limits {
        max_bones: 1,
        ..skelmap::Limits::default()
    };
    let e = crate::support::parse_error::<Hl1>(&b, &limits);
    assert!(
        matches!(
            e,
            Error::Limit {
                format: Format::Hl1,
                what: "header.numbones",
                value: 2,
                max: 1,
                ..
            }
        ),
        "{e}"
    );
}

/// Body parts that all point at one model (or meshes at one command list) would make meshes
/// the file does not pay for: 1,000 body parts of 76 bytes each show the example's model,
/// which once laid end to end per part passes the file.
#[test]
fn rule_9_body_parts_that_show_one_model_again_are_refused() {
    let mut b = example();
    let parts = get_i32(&b, offset_of!(StudioHdr, bodypartindex)) as usize;
    let model = get_i32(&b, parts + 72) as u64;
    repeat_at_end(
        &mut b,
        parts..parts + 76,
        offset_of!(StudioHdr, numbodyparts),
        offset_of!(StudioHdr, bodypartindex),
    );
    match invalid(&err(&b)) {
        (Format::Hl1, "model", offset, Problem::Revisited { bytes, file }) => {
            assert_eq!((offset, file), (model, b.len() as u64));
            assert!(bytes > file);
        }
        other => panic!("{other:?}"),
    }
}

/// Appends the bytes of `record` 1,000 times to `b`, sets the count at `count_at` to 1,000
/// and the index at `index_at` to the first copy, and the header's length to the new size.
fn repeat_at_end(
    b: &mut Vec<u8>,
    record: std::ops::Range<usize>,
    count_at: usize,
    index_at: usize,
) {
    let (bytes, at) = (b[record].to_vec(), b.len());
    for _ in 0..1000 {
        b.extend_from_slice(&bytes);
    }
    put_i32(b, count_at, 1000);
    put_i32(b, index_at, at as i32);
    let len = b.len() as i32;
    put_i32(b, offset_of!(StudioHdr, length), len);
}

/// Meshes that all point at one list of triangle commands: 1,000 mesh records of 20 bytes
/// each name the example's first list, which laid end to end per mesh passes the file.
#[test]
fn rule_9_meshes_that_share_one_command_list_are_refused() {
    let mut b = example();
    let model = model_at(&b);
    let meshes = get_i32(&b, model + offset_of!(Model, meshindex)) as usize;
    let tricmds = get_i32(&b, meshes + 4) as u64;
    repeat_at_end(
        &mut b,
        meshes..meshes + 20,
        model + offset_of!(Model, nummesh),
        model + offset_of!(Model, meshindex),
    );
    match invalid(&err(&b)) {
        (Format::Hl1, "tricmds", offset, Problem::Revisited { bytes, file }) => {
            assert_eq!((offset, file), (tricmds, b.len() as u64));
            assert!(bytes > file);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn rule_8_body_parts_have_a_model() {
    let mut b = example();
    let parts = get_i32(&b, offset_of!(StudioHdr, bodypartindex)) as usize;
    let at = parts + 64;
    put_i32(&mut b, at, 0);
    assert_eq!(
        invalid(&err(&b)),
        (Format::Hl1, "bodypart.nummodels", at as u64, Problem::Empty)
    );
}

#[test]
fn rule_11_attachments_name_bones() {
    let mut b = example();
    let attachments = get_i32(&b, offset_of!(StudioHdr, attachmentindex)) as usize;
    let at = attachments + 36;
    put_i32(&mut b, at, 2);
    assert_eq!(
        invalid(&err(&b)),
        (
            Format::Hl1,
            "attachment.bone",
            at as u64,
            Problem::Index { index: 2, len: 2 }
        )
    );
}

/// The Half-Life SDK's client places four attachments and exits on a model with more
/// (`StudioCalcAttachments`): a fifth is reported at the header's count, and opens.
#[test]
fn rule_11_more_than_four_attachments_is_a_warning() {
    let mut builder = Builder::example();
    let first = builder.attachments[0].clone();
    builder.attachments.resize(4, first.clone());
    let diag = |b: &Builder| {
        let bytes = b.write().unwrap();
        let mut diag = skelmap::Diagnostics::new();
        Hl1::parse_with(&bytes, &skelmap::Limits::DEFAULT, &mut diag).unwrap();
        diag
    };
    assert!(diag(&builder).get(WarningKind::SpecLimit).is_none());
    builder.attachments.push(first);
    let diag = diag(&builder);
    let w = diag.get(WarningKind::SpecLimit).expect("reported");
    assert_eq!(
        (w.what, w.offset),
        (
            "header.numattachments",
            offset_of!(StudioHdr, numattachments) as u64
        )
    );
}
