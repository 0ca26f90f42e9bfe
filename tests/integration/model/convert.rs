//! Conversions through an `Asset` (`model::convert` and each format's `from_asset`): every
//! corpus skeletal model (DPM, MS3D, IQM, MDL7) into every skeletal format (IQM, DPM, SKM +
//! SKP, MS3D, SL, MDL7) and baked into the vertex formats (Quake MDL, MDL5), each reopened with
//! its counts and its error measured over its frames as sets of points; the limits each
//! writer refuses; and, where assimp is installed, every written IQM's static geometry
//! against assimp's.

use std::collections::HashMap;
use std::path::Path;

use skelmap::Limits;
use skelmap::asset::{Asset, WriteError, WriteOptions};
use skelmap::glam::Vec3;
use skelmap::model::convert::{self, Posed, SkinningError};
use skelmap::{Format, Model, gamestudio, iqm, ms3d, quake, skm, slmdl};

use crate::support::corpus_next_files;

/// The skeletal formats an asset is written to here; the vertex formats take it baked.
const SKELETAL: [Format; 6] = [
    Format::Iqm,
    Format::Dpm,
    Format::Skm,
    Format::Ms3d,
    Format::SlMdl,
    Format::Mdl7,
];
const BAKED: [Format; 2] = [Format::Quake, Format::Mdl];

/// The files an asset became, named as the resolver finds companions, the main one's name,
/// the frame offset (SL's keyframe 0 is the bind pose) and the writer's notes.
struct Files {
    table: HashMap<String, Vec<u8>>,
    main: String,
    offset: usize,
    notes: Vec<String>,
}

/// `asset` written as `format` through the write dispatch, skeletal frames baked for the
/// vertex formats.
fn through(asset: &Asset, format: Format) -> Result<Files, WriteError> {
    let written = skelmap::model::write(format, asset, &WriteOptions::bake(true))?;
    assert_eq!(written.format, format);
    let main = format!("m.{}", format.extension());
    let table = written
        .files
        .into_iter()
        .map(|f| {
            let name = f.place.path(Path::new(&main));
            (name.to_string_lossy().into_owned(), f.bytes)
        })
        .collect();
    Ok(Files {
        table,
        main,
        offset: written.first_frame,
        notes: written.notes,
    })
}

/// The model the files of [`through`] make.
fn open(files: &Files) -> Model<'_> {
    Model::resolve(&&files.table, &files.main, &Limits::DEFAULT).unwrap()
}

/// The corpus's skeletal models with meshes, each as an asset cut to its first clips (at
/// most 48 frames, so that the matrix stays quick).
fn skeletal_corpus() -> Vec<(String, Asset)> {
    let mut files = crate::support::skeletal_corpus_files();
    files.extend(corpus_next_files("mdl7"));
    files
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            let model = Model::open(&path).unwrap();
            if model.num_bones() == 0 || model.num_meshes() == 0 {
                return None;
            }
            let mut asset = convert::asset_of(&model).unwrap();
            let mut frames = 0;
            asset.retain_clips(|c| {
                frames += c.len();
                frames - c.len() < 48
            });
            Some((name, asset))
        })
        .collect()
}

/// Whether a writer said it cut influences or dropped scale: what makes a conversion lossy.
fn lossy(losses: &[String]) -> bool {
    losses
        .iter()
        .any(|l| l.contains("influences") || l.contains("scale"))
}

#[test]
fn every_corpus_skeletal_model_converts_to_every_format() {
    let corpus = skeletal_corpus();
    let mut rows = Vec::new();
    for (name, asset) in &corpus {
        for out in SKELETAL.into_iter().chain(BAKED) {
            let files = through(asset, out).unwrap_or_else(|e| panic!("{name} → {out:?}: {e}"));
            let (offset, losses) = (files.offset, &files.notes);
            let model = open(&files);
            let written = convert::asset_of(&model).unwrap();
            let bones = written.skeleton.as_ref().map_or(0, |s| s.joints.len());
            if SKELETAL.contains(&out) {
                let want = asset.skeleton.as_ref().map_or(0, |s| s.joints.len());
                assert_eq!(bones, want, "{name} → {out:?}: bones");
            } else {
                assert_eq!(bones, 0, "{name} → {out:?}: bones");
            }
            assert_eq!(
                written.num_triangles(),
                asset.num_triangles(),
                "{name} → {out:?}"
            );
            let error = convert::skinning_error(Posed::Asset(asset), Posed::Model(&model), offset);
            rows.push(format!("{name} → {out:?}: {error}; {}", losses.join("; ")));
            // Exact formats keep every frame within 1e-4 (float rounding); IQM and MS3D round
            // weights to 255ths (IQM also poses to 16-bit channels); packed vertex formats keep their grid;
            // cut influences and dropped scale cost what they weighed, which the losses say.
            let bound = match out {
                _ if lossy(losses) => 1.0,
                Format::Quake => 1e-2,
                Format::Iqm | Format::Ms3d => 5e-4,
                _ => 1e-4,
            };
            assert!(error.max <= bound, "{name} → {out:?}: {error}; {losses:?}");
        }
    }
    eprintln!("{}", rows.join("\n"));
    assert!(corpus.is_empty() || rows.len() == 8 * corpus.len());
}

#[test]
fn every_format_round_trips_into_itself_and_every_other() {
    // The tube goes to every skeletal format and from there to every other: nothing is
    // lost on the way (three influences at most, no scale).
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let source = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    for first in SKELETAL {
        let files_a = through(&source, first).unwrap();
        let a = convert::asset_of(&open(&files_a)).unwrap();
        for second in SKELETAL {
            let files_b = through(&a, second).unwrap();
            assert!(
                files_b.notes.iter().all(|l| !l.contains("influences")),
                "{:?}",
                files_b.notes
            );
            // Two SL hops each put the bind pose first.
            let offset = files_a.offset + files_b.offset;
            let b = open(&files_b);
            let error: SkinningError =
                convert::skinning_error(Posed::Asset(&source), Posed::Model(&b), offset);
            // IQM's and MS3D's weights are bytes: one hop costs up to 1.3e-4 of the tube's
            // size.
            let bytes = [Format::Iqm, Format::Ms3d];
            let bound = if bytes.contains(&first) || bytes.contains(&second) {
                5e-4
            } else {
                1e-4
            };
            assert!(error.max <= bound, "{first:?} → {second:?}: {error}");
        }
    }
}

/// The writers that keep four influences a vertex (IQM, MS3D, SL) keep, of
/// `model::gpu::tied_at_the_cut`'s vertex 0, bones b0, b1, b2 and b4 (the tied bone that
/// moves), say so in a note, and the conversion misses what the written weights miss of
/// b4's pull (about a ninth of a unit) instead of the whole unit the heaviest four miss.
#[test]
fn writers_that_cut_influences_keep_the_tied_bone_that_moves() {
    let bytes = super::gpu::tied_at_the_cut(true);
    let asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    for out in [Format::Iqm, Format::Ms3d, Format::SlMdl] {
        let files = through(&asset, out).unwrap();
        assert!(
            files.notes.iter().any(|n| n
                == "1 vertices had more than 4 influences; the 4 whose largest error over 2 \
                    frames is smallest were kept (1 differ from the 4 heaviest)"),
            "{out:?}: {:?}",
            files.notes
        );
        let model = open(&files);
        let written = convert::asset_of(&model).unwrap();
        let joints = &written.skeleton.as_ref().unwrap().joints;
        let mesh = &written.meshes[0];
        let v = mesh.positions.iter().position(|p| *p == [0.0; 3]).unwrap();
        // SL stores no joint names; its writer keeps the asset's joint order.
        let name = |j: u16| match joints[usize::from(j)].name.as_str() {
            "" => format!("b{j}"),
            named => named.to_string(),
        };
        let mut kept: Vec<(String, f32)> = mesh
            .influences
            .of(v)
            .iter()
            .map(|&(j, w)| (name(j), w))
            .collect();
        kept.sort_by(|a, b| a.0.cmp(&b.0));
        let names: Vec<&str> = kept.iter().map(|k| k.0.as_str()).collect();
        assert_eq!(names, ["b0", "b1", "b2", "b4"], "{out:?}");
        let missed = (10.0 * kept[3].1 - 1.0).abs();
        assert!((missed - 1.0 / 9.0).abs() < 0.05, "{out:?}: {missed}");
        let error =
            convert::skinning_error(Posed::Asset(&asset), Posed::Model(&model), files.offset);
        assert!(
            (error.max * error.size - missed).abs() < 1e-5,
            "{out:?}: {error} against {missed}"
        );
    }
}

#[test]
fn writers_refuse_what_does_not_fit() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    // Skeletal frames into vertex formats only when baked.
    let e = quake::Builder::from_asset(&asset, false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Quake MDL cannot hold skeletal animation: it stores each frame's vertices, not \
         joints; bake every frame's skinned vertices with `--bake`"
    );
    assert_eq!(
        gamestudio::MdlBuilder::from_asset(&asset, false)
            .unwrap_err()
            .format,
        "MDL5"
    );
    // Name lengths.
    let mut long = asset.clone();
    long.skeleton.as_mut().unwrap().joints[1].name = "b".repeat(32);
    let e = skelmap::dpm::Builder::from_asset(&long).unwrap_err();
    assert_eq!(
        (e.format, e.what.as_str(), e.limit.as_str()),
        (
            "DPM",
            format!("the bone name '{}' (32 bytes)", "b".repeat(32)).as_str(),
            "bone names are at most 31 bytes"
        )
    );
    assert!(skm::write::Builder::from_asset(&long).is_ok());
    // Joint counts.
    let mut many = asset.clone();
    let joint = many.skeleton.as_ref().unwrap().joints[0].clone();
    many.skeleton.as_mut().unwrap().joints = (0..300)
        .map(|i| skelmap::asset::Joint {
            name: format!("j{i}"),
            ..joint.clone()
        })
        .collect();
    assert_eq!(
        iqm::Builder::from_asset(&many).unwrap_err().what,
        "300 joints"
    );
    assert_eq!(
        ms3d::Builder::from_asset(&many).unwrap_err().what,
        "300 joints"
    );
    assert_eq!(
        slmdl::write::Builder::from_asset(&many).unwrap_err().what,
        "300 joints"
    );
    // Duplicate joint names in MS3D, which links parents by name: the second is renamed.
    let mut twins = asset.clone();
    let first = twins.skeleton.as_ref().unwrap().joints[1].name.clone();
    twins.skeleton.as_mut().unwrap().joints[2].name = first.clone();
    let fitted = ms3d::Builder::from_asset(&twins).unwrap();
    let renamed = format!("{first}_2").into_bytes();
    assert_eq!(fitted.builder.joints[2].name, renamed);
    assert_eq!(fitted.builder.joints[3].parent, renamed);
    // Joints without names (Half-Life's often have none): each is named, the first too,
    // since a joint naming an empty parent is a root. Named `''` they all became roots
    // (assimp's `unnamed_bones.mdl` converted with 60 % of its size in error).
    let mut unnamed = asset.clone();
    for j in &mut unnamed.skeleton.as_mut().unwrap().joints {
        j.name.clear();
    }
    let fitted = ms3d::Builder::from_asset(&unnamed).unwrap();
    let names: Vec<_> = (fitted.builder.joints.iter())
        .map(|j| String::from_utf8_lossy(&j.name).into_owned())
        .collect();
    let parents = unnamed
        .skeleton
        .as_ref()
        .unwrap()
        .joints
        .iter()
        .map(|j| j.parent);
    for (j, parent) in fitted.builder.joints.iter().zip(parents) {
        let expected = parent.map_or(String::new(), |p| names[p].clone());
        assert_eq!(String::from_utf8_lossy(&j.parent), expected);
    }
    assert_eq!(names[0], "_0");
    assert_eq!(
        fitted.losses[0],
        "joint 0 has no name and is named '_0': MS3D finds parents by name, and a joint \
         naming no parent is a root"
    );
    // Vertex animation into skeletal formats.
    let mdl = std::fs::read(
        crate::support::corpus_files("mdl")
            .into_iter()
            .next()
            .unwrap_or_default(),
    );
    if let Ok(mdl) = mdl {
        let morph = convert::asset_of(&Model::from_bytes(&mdl).unwrap()).unwrap();
        if morph.has_morph_clips() {
            assert_eq!(
                iqm::Builder::from_asset(&morph).unwrap_err().what,
                "vertex animation (morph-target frames)"
            );
        }
    }
}

/// Vertex animation (a Quake triangle of two frames) into every format whose frames pose
/// joints only is refused, each writer naming itself and the formats that keep it; the
/// formats of vertex frames and glTF take it. MD5 left its morph clips out with a note, and
/// `convert` then measured each frame against none (largest 1, RMS 0).
#[test]
fn every_skeletal_writer_refuses_vertex_animation_and_says_where_it_goes() {
    let mut builder = quake::Builder::triangle();
    let second = builder.frames[0].clone();
    builder.frames.push(second);
    let bytes = builder.write();
    let asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    assert!(asset.has_morph_clips());
    let refusing = [
        (Format::Dpm, "DPM"),
        (Format::Skm, "SKM"),
        (Format::Ms3d, "MS3D"),
        (Format::SlMdl, "SL"),
        (Format::Iqm, "IQM"),
        (Format::Mdr, "MDR"),
        (Format::Md5, "MD5"),
        (Format::Zym, "ZYM"),
        (Format::Mdm, "MDM"),
        (Format::Psk, "PSK"),
        (Format::Hl1, "Half-Life MDL"),
    ];
    for (format, name) in refusing {
        let Err(WriteError::Fit(e)) =
            skelmap::model::write(format, &asset, &WriteOptions::default())
        else {
            panic!("{format:?} wrote vertex animation");
        };
        assert_eq!(e.format, name);
        assert_eq!(e.what, "vertex animation (morph-target frames)");
        assert!(
            e.to_string()
                .contains("convert to a format of vertex frames (MD3, MD2, MDC, Quake MDL or"),
            "{e}"
        );
    }
    for format in [
        Format::Md3,
        Format::Md2,
        Format::Mdc,
        Format::Quake,
        Format::Mdl,
        Format::Mdl7,
    ] {
        let written = skelmap::model::write(format, &asset, &WriteOptions::default());
        assert!(written.is_ok(), "{format:?}: {written:?}");
    }
}

/// A joint named `tag_…` (ASCII case ignored) is an attachment point to every writer of a
/// format that holds tags or attachments, flagged or not (an MD5 weapon's `tag_muzzle`, an
/// IQM's joints, which an asset flags none of): each written model has it by that name.
#[test]
fn every_writer_of_tags_makes_one_of_a_joint_named_tag() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let mut asset = convert::asset_of(&source).unwrap();
    let skeleton = asset.skeleton.as_mut().unwrap();
    let joint = (0..skeleton.joints.len())
        .rev()
        .find(|j| !skeleton.attachments.contains(j))
        .unwrap();
    skeleton.joints[joint].name = "Tag_Muzzle".into();
    assert!(skeleton.attachment_points().contains(&joint));
    for (format, extension) in [
        (Format::Md3, "md3"),
        (Format::Mdc, "mdc"),
        (Format::Mdr, "mdr"),
        (Format::Mdm, "mdm"),
        (Format::Hl1, "mdl"),
    ] {
        let written = skelmap::model::write(format, &asset, &WriteOptions::bake(true)).unwrap();
        let (files, main) = crate::support::written_folder(&written, extension);
        let model = Model::resolve(&&files, &main, &Limits::DEFAULT).unwrap();
        let kept = model
            .attachments()
            .filter(|a| a.name == b"Tag_Muzzle")
            .count();
        assert_eq!(kept, 1, "{format:?}");
    }
}

#[test]
fn written_iqms_open_in_assimp_with_the_same_static_geometry() {
    let Some(assimp) = crate::support::oracle::assimp() else {
        return;
    };
    let dir = tempfile::Builder::new()
        .prefix("skelmap-convert-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let files = crate::support::skeletal_corpus_files();
    let mut checked = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let source = Model::from_bytes(&bytes).unwrap();
        if source.num_meshes() == 0 {
            continue;
        }
        let asset = convert::asset_of(&source).unwrap();
        let written = iqm::Builder::from_asset(&asset)
            .unwrap()
            .builder
            .write()
            .unwrap();
        let iqm = dir.join(format!("{name}.iqm"));
        let obj = dir.join(format!("{name}.obj"));
        std::fs::write(&iqm, &written).unwrap();
        let out = std::process::Command::new(&assimp)
            .arg("export")
            .arg(&iqm)
            .arg(&obj)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: assimp: {out:?}");
        let text = String::from_utf8_lossy(&std::fs::read(&obj).unwrap()).into_owned();
        // assimp turns IQM's Z-up into Y-up: (x, y, z) → (x, z, −y).
        let theirs: Vec<Vec3> = text
            .lines()
            .filter(|l| l.starts_with("v "))
            .map(|l| {
                let v: Vec<f32> = l
                    .split_whitespace()
                    .skip(1)
                    .map(|x| x.parse().unwrap())
                    .collect();
                Vec3::new(v[0], -v[2], v[1])
            })
            .collect();
        let model = Model::from_bytes(&written).unwrap();
        let iqm_view = model.as_iqm().unwrap().mesh();
        let ours: Vec<Vec3> = (0..iqm_view.num_vertices())
            .filter_map(|v| iqm_view.position(v))
            .map(Vec3::from_array)
            .collect();
        let (lo, hi) = ours.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let tolerance = 1e-4 * (hi - lo).length();
        let key = |p: &Vec3| (*p / tolerance.max(1e-12)).round().as_ivec3().to_array();
        let mut a: Vec<_> = ours.iter().map(key).collect();
        let mut b: Vec<_> = theirs.iter().map(key).collect();
        for set in [&mut a, &mut b] {
            set.sort_unstable();
            set.dedup();
        }
        let near = |p: &Vec3, set: &[Vec3]| set.iter().any(|q| (*p - *q).length() <= tolerance);
        if a != b {
            assert!(
                ours.iter().all(|p| near(p, &theirs)),
                "{name}: a vertex assimp lacks"
            );
            assert!(
                theirs.iter().all(|p| near(p, &ours)),
                "{name}: an assimp vertex we lack"
            );
        }
        checked += 1;
    }
    eprintln!("{checked} written IQMs: assimp's static geometry equals ours");
}

/// A `+Y`-up MS3D's joints, written into `+Z`-up IQM and MD5, are measured where they are:
/// both sides turned to `+Y` up, as the vertices are, so an exact conversion measures 0 and
/// not the quarter turn between the axes.
#[test]
fn attachments_are_measured_in_the_same_axes_as_vertices() {
    let bytes = crate::support::ms3d::arm().write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    assert_eq!(source.conventions().up, skelmap::asset::UpAxis::Y);
    let asset = convert::asset_of(&source).unwrap();
    for format in [Format::Iqm, Format::Md5] {
        let files = through(&asset, format).unwrap();
        let converted = open(&files);
        assert_eq!(converted.conventions().up, skelmap::asset::UpAxis::Z);
        let error = convert::attachment_error(&source, &converted, files.offset).unwrap();
        assert_eq!((error.source, error.kept), (2, 2), "{format:?}");
        assert!(
            error.origin <= 1e-5 && error.angle <= 1e-3,
            "{format:?}: {error:?}"
        );
    }
}

/// An attachment turned by 10⁻⁴ rad (0.0057°) reads as that turn, and an unturned one as 0:
/// the angle between axes is not `acos` of their dot product, whose step below 1 is
/// 3.5·10⁻⁴ rad in `f32` (every exact conversion measured "within 0.020°").
#[test]
fn attachment_angles_below_a_thousandth_of_a_radian_are_measured() {
    let source_bytes = skelmap::md3::Builder::triangle().write();
    let source = Model::from_bytes(&source_bytes).unwrap();
    let turn = 1e-4f32;
    let mut b = skelmap::md3::Builder::triangle();
    b.tags[0][0].axis = [
        [turn.cos(), turn.sin(), 0.0],
        [-turn.sin(), turn.cos(), 0.0],
        [0.0, 0.0, 1.0],
    ];
    let turned_bytes = b.write();
    let turned = Model::from_bytes(&turned_bytes).unwrap();
    let error = convert::attachment_error(&source, &turned, 0).unwrap();
    assert_eq!((error.kept, error.origin), (1, 0.0));
    assert!((error.angle - turn).abs() < 1e-9, "{error:?}");
    let same = convert::attachment_error(&source, &source, 0).unwrap();
    assert_eq!(same.angle, 0.0);
}

/// Half-Life attachments all read as `attachment` (studiomdl leaves them unnamed); the asset
/// numbers the second `attachment2`. Each is measured against its own: the `k`-th of a name
/// against the `k`-th of that name, or the one numbered `k`. Matched by name alone, both
/// were measured against the first, 4 units away in a model of 10 on Half-Life's `man`.
#[test]
fn attachments_of_one_name_are_measured_each_against_its_own() {
    let mut b = skelmap::hl1::Builder::example();
    let mut second = b.attachments[0].clone();
    second.org = [-1.0, 5.0, 0.5];
    b.attachments.push(second);
    let bytes = b.write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let asset = convert::asset_of(&source).unwrap();
    for format in [Format::Hl1, Format::Iqm, Format::Dpm] {
        let files = through(&asset, format).unwrap();
        let converted = open(&files);
        let error = convert::attachment_error(&source, &converted, files.offset).unwrap();
        assert_eq!((error.source, error.kept), (2, 2), "{format:?}");
        assert!(error.origin <= 1e-3, "{format:?}: {error:?}");
    }
}

/// `bytes` holds `part` somewhere.
fn holds(bytes: &[u8], part: &[u8]) -> bool {
    bytes.windows(part.len()).any(|w| w == part)
}

/// Frames named on Chinese Windows (GBK) make clips named by their stems as text, one clip a
/// stem, and every writer that keeps clip names stores them in GBK (MD5 in its animations'
/// file names, which are text), read back as the same clips. Frame names were cut to ASCII
/// before, and the two clips came back as one named `_`.
#[test]
fn gbk_frame_names_make_clips_every_writer_keeps() {
    use skelmap::name::CodePage;
    use skelmap::synth::{TubeParams, tube};
    let (walk, run) = (&[0xD7, 0xDF][..], &[0xC5, 0xDC][..]); // 走, 跑
    let mut b = tube(&TubeParams {
        frames: 5,
        ..TubeParams::default()
    });
    for (frame, name) in b.frames.iter_mut().zip([
        [walk, b"1"].concat(),
        [walk, b"2"].concat(),
        [walk, b"3"].concat(),
        [run, b"_1"].concat(),
        [run, b"_2"].concat(),
    ]) {
        frame.name = name;
    }
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.code_page(), CodePage::Gbk);
    let clips = |model: &Model<'_>| -> Vec<(String, u32)> {
        model
            .clips()
            .iter()
            .map(|c| (c.name.clone(), c.count))
            .collect()
    };
    let want = [("\u{8d70}".to_string(), 3), ("\u{8dd1}".to_string(), 2)];
    assert_eq!(clips(&model), want);
    let asset = convert::asset_of(&model).unwrap();
    // MS3D keeps one timeline, SL no clips.
    let nameless = [Format::Ms3d, Format::SlMdl];
    for format in Format::ALL.iter().copied().filter(|f| f.writable()) {
        let files = through(&asset, format).unwrap_or_else(|e| panic!("{format}: {e}"));
        let all: Vec<u8> = files.table.values().flatten().copied().collect();
        assert!(!holds(&all, "\u{8d70}".as_bytes()), "{format} stores UTF-8");
        let reopened = open(&files);
        if nameless.contains(&format) {
            assert!(clips(&reopened).len() <= 1, "{format}");
            continue;
        }
        assert_eq!(clips(&reopened), want, "{format}");
        if format != Format::Md5 {
            assert!(holds(&all, walk) && holds(&all, run), "{format}");
        }
    }
}

/// Clip names longer than a 16-byte frame name: every frame of a clip gets one stem however
/// many digits its number takes, and a clip cut to the stem of the clip before it gets
/// another, so each comes back as one clip of its frames, with a note naming what the names
/// lost. Frames 10 on had a shorter stem before (a clip split in two), and clips cut to one
/// stem were read as one.
#[test]
fn long_clip_names_come_back_as_their_clips_from_frame_names() {
    use skelmap::synth::{TubeParams, tube};
    let mut b = tube(&TubeParams {
        frames: 15,
        ..TubeParams::default()
    });
    for (i, frame) in b.frames.iter_mut().enumerate() {
        frame.name = match i {
            0..12 => format!("attack_sword_left{}", i + 1),
            12..14 => format!("attack_sword_1_{}", i - 11),
            _ => "attack_sword_2_1".to_string(),
        }
        .into_bytes();
    }
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let clips = |model: &Model<'_>| -> Vec<(String, u32, u32)> {
        (model.clips().iter())
            .map(|c| (c.name.clone(), c.first, c.count))
            .collect()
    };
    let source = [
        ("attack_sword_left".to_string(), 0, 12),
        ("attack_sword_1".to_string(), 12, 2),
        ("attack_sword_2".to_string(), 14, 1),
    ];
    assert_eq!(clips(&model), source);
    let asset = convert::asset_of(&model).unwrap();
    // In 15 bytes: `attack_sword` and a number to 12; `attack_sword_` and one to 2; the
    // same for the third would join the second: `attack_sword` and a letter.
    let want = [
        ("attack_sword".to_string(), 0, 12),
        ("attack_sword_".to_string(), 12, 2),
        ("attack_sworda".to_string(), 14, 1),
    ];
    for format in [
        Format::Quake,
        Format::Md2,
        Format::Md3,
        Format::Mdc,
        Format::Mdl,
    ] {
        let files = through(&asset, format).unwrap_or_else(|e| panic!("{format}: {e}"));
        assert_eq!(clips(&open(&files)), want, "{format}");
        let note = files.notes.iter().find(|n| n.contains("clip names"));
        assert_eq!(
            note.map(String::as_str),
            Some(
                format!(
                    "3 clip names are read back otherwise: {format} names clips by their frames' \
                     names, letters, digits and `_` in at most 15 bytes with the frame's number \
                     (`attack_sword_left` as `attack_sword` and 2 more)"
                )
                .as_str()
            ),
            "{format}"
        );
    }
    // DPM keeps them whole in its `.framegroups` file, and says nothing.
    let files = through(&asset, Format::Dpm).unwrap();
    assert_eq!(clips(&open(&files)), source);
    assert!(!files.notes.iter().any(|n| n.contains("clip names")));
}

/// A model saved on Chinese Windows names its parts in GBK. Every writer stores the names as
/// they were read, so a texture file is still found by its bytes, and a joint name that
/// fits a 32-byte field in GBK (two bytes a character) is not refused for taking 36 in UTF-8
/// (three): MS3D, DPM, ZYM and Half-Life refused the joint below before.
#[test]
fn names_read_in_gbk_are_written_in_gbk_by_every_format() {
    use skelmap::name::CodePage;
    // 左前臂上的第一块骨头关节, 皮肤, 手臂 in GBK.
    let joint: &[u8] = &[
        0xD7, 0xF3, 0xC7, 0xB0, 0xB1, 0xDB, 0xC9, 0xCF, 0xB5, 0xC4, 0xB5, 0xDA, 0xD2, 0xBB, 0xBF,
        0xE9, 0xB9, 0xC7, 0xCD, 0xB7, 0xB9, 0xD8, 0xBD, 0xDA,
    ];
    let material: &[u8] = &[0xC6, 0xA4, 0xB7, 0xF4];
    let group: &[u8] = &[0xCA, 0xD6, 0xB1, 0xDB];
    let joint_text = "\u{5de6}\u{524d}\u{81c2}\u{4e0a}\u{7684}\u{7b2c}\u{4e00}\u{5757}\u{9aa8}\u{5934}\u{5173}\u{8282}";
    let mut b = crate::support::ms3d::arm();
    b.joints[1].name = joint.to_vec();
    b.materials[0].0 = material.to_vec();
    b.textures = vec![[material, b".tga"].concat()];
    b.groups[0].name = group.to_vec();
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.code_page(), CodePage::Gbk);
    let asset = model.to_asset(&skelmap::asset::Options::default()).unwrap();
    assert_eq!(asset.code_page, CodePage::Gbk);
    let skeleton = asset.skeleton.as_ref().unwrap();
    assert_eq!(skeleton.joints[1].name, joint_text);
    assert_eq!(asset.materials[0].name, "\u{76ae}\u{80a4}");
    // Its texture as a URI (glTF's): the text, percent-encoded as UTF-8.
    assert_eq!(
        asset.materials[0].external.as_deref(),
        Some("%E7%9A%AE%E8%82%A4.tga")
    );

    let utf8: Vec<Vec<u8>> = [joint_text, "\u{76ae}\u{80a4}", "\u{624b}\u{81c2}"]
        .map(|s| s.as_bytes().to_vec())
        .into();
    let mut found = Vec::new();
    for format in Format::ALL.iter().copied().filter(|f| f.writable()) {
        let files = through(&asset, format).unwrap_or_else(|e| panic!("{format}: {e}"));
        let all: Vec<u8> = files.table.values().flatten().copied().collect();
        for name in &utf8 {
            assert!(!holds(&all, name), "{format} stores a name in UTF-8");
        }
        let reopened = open(&files);
        let kept = [joint, material].map(|name| holds(&all, name));
        found.push((format, kept));
        if kept.contains(&true) {
            assert_eq!(reopened.code_page(), CodePage::Gbk, "{format}");
        }
        // Read back, the names are the text they were.
        let back = reopened
            .to_asset(&skelmap::asset::Options::default())
            .unwrap();
        if kept[0] {
            let joints = &back.skeleton.as_ref().unwrap().joints;
            assert!(joints.iter().any(|j| j.name == joint_text), "{format}");
        }
        if kept[1] {
            let skin = |m: &skelmap::asset::Material| {
                m.name.contains("\u{76ae}\u{80a4}")
                    || m.texture
                        .as_deref()
                        .is_some_and(|t| t.contains("\u{76ae}\u{80a4}"))
            };
            assert!(back.materials.iter().any(skin), "{format}");
        }
    }
    // Quake MDL, GameStudio MDL5 and SL store no names; MD2, MD3, MDC and MDR name a
    // texture or shader but no joints.
    let none = [Format::Mdl, Format::SlMdl, Format::Quake];
    let shader_only = [Format::Md3, Format::Md2, Format::Mdc, Format::Mdr];
    for &(format, kept) in &found {
        let want = if none.contains(&format) {
            [false, false]
        } else if shader_only.contains(&format) {
            [false, true]
        } else {
            [true, true]
        };
        assert_eq!(kept, want, "{format}");
    }
    assert_eq!(found.len(), 17);
}
