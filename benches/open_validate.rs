//! `open_validate`: full validation in bytes/s, in one group so the rows compare directly:
//! - `dpm/<model>`: `Dpm::parse` of the DPM;
//! - `skm/<model>`: `Skm::parse` + `Skp::parse` + pairing of the same model converted to
//!   SKM + SKP (little-endian records, quaternion poses);
//! - `bytesum/<model>`: a plain pass that sums the DPM's bytes (the memory-read roofline for
//!   that buffer, measured in the same run);
//! - `open/<dir>_<file>` and `bytesum/<dir>_<file>`: `Model::from_bytes` (recognition,
//!   validation and what `Model` adds at open) of every corpus DPM, MS3D, GameStudio MDL and
//!   HMP and Quake MDL, beside the same read of its bytes.
//! - `iqm/<model>` and `bytesum/<model>`: `Iqm::parse` of every IQM in
//!   ../shared/corpus-next/iqm and of two synthetic IQMs (`common::four_influence_tube`, four
//!   influences per vertex): `synthetic_iqm_6MB` (32 joints, about 100k vertices, in the caches)
//!   and `synthetic_iqm_52MB` (64 joints, about 820k vertices, from memory), beside the read of
//!   its bytes; `open/iqm_<model>`: `Model::from_bytes` of the corpus IQMs (the view, the
//!   model around it and its tables: the fixed cost a small file pays).
//! - `mdl7/<model>` and `bytesum/<model>`: `Mdl7::parse` of every MDL7 in
//!   ../shared/corpus-next/mdl7 and of two synthetic MDL7s (`common::mdl7_tube`, about 61k
//!   vertices, in the caches): `synthetic_mdl7_<n>MB` (32 bones, up to two weights a vertex,
//!   bone frames) and `synthetic_mdl7_frames_<n>MB` (no bones, every frame replacing every
//!   vertex), beside the read of its bytes; `open/mdl7_<model>`: `Model::from_bytes` of the
//!   corpus MDL7s.
//! - `md3/<model>`, `bytesum/<model>` and `open/md3_<model>`: the same for every MD3 in
//!   ../shared/corpus-engines/md3.
//! - `md2/<model>`, `bytesum/<model>` and `open/md2_<model>`: the same for every MD2 in
//!   ../shared/corpus-engines/md2.
//! - `mdc/<model>`, `bytesum/<model>` and `open/mdc_<model>`: the same for every MDC in
//!   ../shared/corpus-engines/mdc.
//! - `md5/<file>`, `bytesum/<file>` and `open/md5_<file>`: the one pass over the text
//!   (`md5::MeshFile::parse` or `md5::Anim::parse`: tokenised, checked and decoded) of every
//!   `.md5mesh` and `.md5anim` in ../shared/corpus-engines/md5, and of a synthetic
//!   `.md5mesh` (`synthetic_md5_<n>MB`: 64 joints, 100k vertices of two weights each, as
//!   exporters print them), beside the read of its bytes.
//! - `hl1/<model>`, `bytesum/<model>` and `open/hl1_<model>`: the same for every Half-Life
//!   model and texture file in ../shared/corpus-engines/hl1 (all under 64 KB), and `hl1/` of
//!   two synthetic models from `hl1::Builder` (32 bones, 2000 vertices in strips, two
//!   sequences of 60 frames): `synthetic_hl1_<n>KB`, whose every channel changes each frame
//!   (one run of values a channel), and `synthetic_hl1_held_<n>KB`, whose every channel
//!   holds each value three frames (twenty runs a channel, the chains validation walks).
//! - `psk/`, `zym/`, `mdr/`, `mdm/` and `mdx/` of one synthetic file each, beside the read of
//!   its bytes: the PSK, ZYM and MDR written by `model::write` from the skinning benches' tube
//!   (`common::synthetic(32, 98)`: 32 bones, about 100k vertices, 4 frames), the MDM and MDX
//!   from `mdm::Builder::triangle` with its surface repeated (60k vertices, 200 frames).
//!
//! Inputs of `dpm/` and `skm/`: every DPM in ../shared/corpus/dpm (skipped with a message when
//! absent) and a synthetic ≥ 50 MB model from the writer (a 64-bone tube with ~410k vertices).
//! DPM validation touches every vertex record, pose, texture coordinate and index; only the group
//! ids (4 bytes per triangle) are range-checked without being read.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use skelmap::Parse;
use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skelmap::dpm::Dpm;
use skelmap::iqm::Iqm;
use skelmap::mdl7::Mdl7;
use skelmap::skm;
use skelmap::skm::{Skm, Skp, convert};
use skelmap::synth::{TubeParams, tube};
use skelmap::{Diagnostics, Model};

fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut out = common::corpus("dpm");
    let params = TubeParams {
        bones: 64,
        rings_per_bone: 200,
        sides: 32,
        frames: 4,
        ..TubeParams::default()
    };
    let big = tube(&params).write().unwrap();
    assert!(
        big.len() >= 50_000_000,
        "synthetic model is {} bytes",
        big.len()
    );
    out.push((format!("synthetic_{}MB", big.len() / 1_000_000), big));
    out
}

fn open_validate(c: &mut Criterion) {
    let mut group = c.benchmark_group("open_validate");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for (name, bytes) in inputs() {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::new("dpm", &name), &bytes, |b, bytes| {
            b.iter(|| {
                Dpm::parse(black_box(bytes))
                    .expect("valid input")
                    .num_frames()
            })
        });
        group.bench_with_input(BenchmarkId::new("bytesum", &name), &bytes, |b, bytes| {
            b.iter(|| common::byte_sum(black_box(bytes)))
        });
        let dpm = Dpm::parse(&bytes).expect("valid input");
        let converted = convert::from_dpm(&dpm, &mut Diagnostics::new());
        let skm = converted.skm.write().expect("writable");
        let skp = converted.skp.write().expect("writable");
        group.throughput(Throughput::Bytes((skm.len() + skp.len()) as u64));
        group.bench_with_input(
            BenchmarkId::new("skm", &name),
            &(skm, skp),
            |b, (skm, skp)| {
                b.iter(|| {
                    let skm = Skm::parse(black_box(skm)).expect("valid input");
                    let skp = Skp::parse(black_box(skp)).expect("valid input");
                    skm::Pair::new(skm, skp, &[])
                        .expect("paired")
                        .skp()
                        .num_frames()
                })
            },
        );
    }
    // Every corpus file of the first corpus, opened as a caller opens it (the format
    // recognised from the magic): DPM and MS3D, MDL3/4/5, HMP5/7 and Quake MDL.
    for dir in ["dpm", "ms3d", "mdl", "hmp", "mdl_quake"] {
        for (name, bytes) in common::corpus(dir) {
            group.throughput(Throughput::Bytes(bytes.len() as u64));
            let id = format!("{dir}_{name}");
            group.bench_with_input(BenchmarkId::new("open", &id), &bytes, |b, bytes| {
                b.iter(|| {
                    Model::from_bytes(black_box(bytes))
                        .expect("valid input")
                        .num_frames()
                })
            });
            group.bench_with_input(BenchmarkId::new("bytesum", &id), &bytes, |b, bytes| {
                b.iter(|| common::byte_sum(black_box(bytes)))
            });
        }
    }
    iqm_rows(&mut group);
    mdl7_rows(&mut group);
    // Every shared MD3 (../shared/corpus-engines/md3).
    let md3 = common::corpus_engines("md3");
    format_rows(&mut group, "md3", &md3, &[], |bytes| {
        skelmap::md3::Md3::parse(bytes)
            .expect("valid input")
            .num_frames()
    });
    // Every shared MD2 (../shared/corpus-engines/md2).
    let md2 = common::corpus_engines("md2");
    format_rows(&mut group, "md2", &md2, &[], |bytes| {
        skelmap::md2::Md2::parse(bytes)
            .expect("valid input")
            .frames()
            .len()
    });
    // Every shared MDC (../shared/corpus-engines/mdc).
    let mdc = common::corpus_engines("mdc");
    format_rows(&mut group, "mdc", &mdc, &[], |bytes| {
        skelmap::mdc::Mdc::parse(bytes)
            .expect("valid input")
            .num_frames()
    });
    // Every shared MD5 (../shared/corpus-engines/md5) and a synthetic mesh of some MB.
    let md5 = common::corpus_engines("md5");
    let text = md5_text(64, 100_000);
    let synthetic = vec![(format!("synthetic_md5_{}MB", text.len() / 1_000_000), text)];
    format_rows(&mut group, "md5", &md5, &synthetic, |bytes| {
        use skelmap::md5::{Anim, MeshFile};
        MeshFile::parse(bytes)
            .map(|m| m.num_meshes())
            .or_else(|_| Anim::parse(bytes).map(|a| a.num_frames()))
            .expect("valid input")
    });
    skeletal_rows(&mut group);
    group.finish();
}

/// The rows of the other skeletal formats (see the module docs): the shared Half-Life models
/// and one synthetic file of each format.
fn skeletal_rows(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    use skelmap::asset::WriteOptions;
    use skelmap::{Format, hl1, mdm, mdr, psk, zym};
    let mb = |kind: &str, bytes: Vec<u8>| {
        let name = format!("synthetic_{kind}_{}KB", bytes.len() / 1000);
        println!("open_validate {kind}/{name}: {} bytes", bytes.len());
        vec![(name, bytes)]
    };
    // The shared models and texture file (a sequence-group file is no model), and a grid.
    let mut shared = common::corpus_engines("hl1");
    shared.retain(|(_, bytes)| bytes.starts_with(b"IDST"));
    let mut grids = mb("hl1", common::hl1_grid(1));
    grids.extend(mb("hl1_held", common::hl1_grid(3)));
    format_rows(group, "hl1", &shared, &grids, |bytes| {
        hl1::Hl1::parse(bytes).expect("valid input").num_bones()
    });
    // PSK, ZYM and MDR written from the skinning benches' tube (32 bones, about 100k
    // vertices, 4 frames) through `model::write`, as `convert` writes them.
    let tube = common::synthetic(32, 98);
    let asset = Model::from_bytes(&tube)
        .expect("valid input")
        .to_asset(&Default::default())
        .expect("an asset");
    let written = |format: Format| {
        let mut out = skelmap::model::write(format, &asset, &WriteOptions::default())
            .expect("writable")
            .files;
        out.swap_remove(0).bytes
    };
    format_rows(
        group,
        "psk",
        &[],
        &mb("psk", written(Format::Psk)),
        |bytes| psk::Psk::parse(bytes).expect("valid input").num_points(),
    );
    format_rows(
        group,
        "zym",
        &[],
        &mb("zym", written(Format::Zym)),
        |bytes| zym::Zym::parse(bytes).expect("valid input").num_poses(),
    );
    format_rows(
        group,
        "mdr",
        &[],
        &mb("mdr", written(Format::Mdr)),
        |bytes| mdr::Mdr::parse(bytes).expect("valid input").num_frames(),
    );
    // MDM and MDX from the builder's triangle, its surface repeated.
    let (mdm, mdx) = mdm_grid();
    format_rows(group, "mdm", &[], &mb("mdm", mdm), |bytes| {
        mdm::Mdm::parse(bytes).expect("valid input").num_vertices()
    });
    format_rows(group, "mdx", &[], &mb("mdx", mdx), |bytes| {
        mdm::Mdx::parse(bytes).expect("valid input").num_frames()
    });
}

/// The MDM builder's triangle pair with its surface's three vertices repeated 20 000 times
/// (a triangle each) and 200 frames.
fn mdm_grid() -> (Vec<u8>, Vec<u8>) {
    let mut b = skelmap::mdm::Builder::triangle();
    let surface = &mut b.surfaces[0];
    let one = surface.vertices.clone();
    let copies: i32 = 20_000;
    surface.vertices = (0..copies).flat_map(|_| one.iter().cloned()).collect();
    surface.triangles = (0..copies).map(|k| [3 * k, 3 * k + 1, 3 * k + 2]).collect();
    surface.collapse_map = (0..3 * copies).collect();
    let frame = b.frames[0].clone();
    b.frames = vec![frame; 200];
    b.write()
}

/// An `.md5mesh` of a chain of `joints` joints and one mesh of `verts` vertices, two weights
/// each, written with six decimals as exporters write them.
fn md5_text(joints: usize, verts: usize) -> Vec<u8> {
    use std::fmt::Write;
    let mut t = String::new();
    let _ = write!(
        t,
        "MD5Version 10\ncommandline \"bench\"\n\nnumJoints {joints}\nnumMeshes 1\n\njoints {{\n"
    );
    for j in 0..joints {
        let _ = writeln!(
            t,
            "\t\"joint{j}\"\t{} ( 0.000000 0.000000 {}.000000 ) ( 0.000000 0.000000 -0.017452 )\t\t// ",
            j as i64 - 1,
            j
        );
    }
    let _ = write!(
        t,
        "}}\n\nmesh {{\n\tshader \"bench\"\n\n\tnumverts {verts}\n"
    );
    for v in 0..verts {
        let _ = writeln!(
            t,
            "\tvert {v} ( {:.6} {:.6} ) {} 2",
            (v % 100) as f32 / 100.0,
            (v / 100) as f32 / 1000.0,
            2 * v
        );
    }
    let tris = verts - 2;
    let _ = write!(t, "\n\tnumtris {tris}\n");
    for i in 0..tris {
        let _ = writeln!(t, "\ttri {i} {} {} {}", i, i + 1, i + 2);
    }
    let _ = write!(t, "\n\tnumweights {}\n", 2 * verts);
    for v in 0..verts {
        let j = v * joints / verts;
        for (k, bias) in [(0, 0.75), (1, 0.25)] {
            let joint = (j + k).min(joints - 1);
            let _ = writeln!(
                t,
                "\tweight {} {joint} {bias:.6} ( {:.6} {:.6} {:.6} )",
                2 * v + k,
                (v % 7) as f32 * 0.125,
                (v % 13) as f32 * -0.0625,
                0.333333
            );
        }
    }
    t.push_str("}\n\n");
    t.into_bytes()
}

/// The IQM rows: every corpus IQM and the synthetic ones (see the module docs).
fn iqm_rows(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let corpus = common::corpus_next("iqm");
    // One tube that stays in the caches, one read from memory (as `synthetic_56MB` is).
    let synthetic: Vec<(String, Vec<u8>)> = [(32, 98, 32), (64, 200, 64)]
        .into_iter()
        .map(|(joints, rings_per_joint, sides)| {
            let (tube, _) = common::four_influence_tube(joints, rings_per_joint, sides, 4);
            let tube = tube.write().unwrap();
            (format!("synthetic_iqm_{}MB", tube.len() / 1_000_000), tube)
        })
        .collect();
    for (name, bytes) in corpus.iter().chain(&synthetic) {
        let iqm = Iqm::parse(bytes).expect("valid input");
        println!(
            "open_validate iqm/{name}: {} bytes, {} vertices, {} joints, {} frames",
            bytes.len(),
            iqm.num_vertices(),
            iqm.num_joints(),
            iqm.num_frames()
        );
    }
    format_rows(group, "iqm", &corpus, &synthetic, |bytes| {
        Iqm::parse(bytes).expect("valid input").num_frames()
    });
}

/// A format's rows over `corpus` and `synthetic` inputs: `<kind>/<input>` (`parse`, the
/// format's validation) and `bytesum/<input>` beside it, then `open/<kind>_<file>`
/// (`Model::from_bytes`, as a caller opens a file) for the corpus files.
fn format_rows(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    kind: &str,
    corpus: &[(String, Vec<u8>)],
    synthetic: &[(String, Vec<u8>)],
    parse: impl Fn(&[u8]) -> usize,
) {
    for (name, bytes) in corpus.iter().chain(synthetic) {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::new(kind, name), bytes, |b, bytes| {
            b.iter(|| parse(black_box(bytes)))
        });
        group.bench_with_input(BenchmarkId::new("bytesum", name), bytes, |b, bytes| {
            b.iter(|| common::byte_sum(black_box(bytes)))
        });
    }
    for (name, bytes) in corpus {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        let id = format!("{kind}_{name}");
        group.bench_with_input(BenchmarkId::new("open", &id), bytes, |b, bytes| {
            b.iter(|| {
                Model::from_bytes(black_box(bytes))
                    .expect("valid input")
                    .num_frames()
            })
        });
    }
}

/// The MDL7 rows: every corpus MDL7 and the synthetic ones (see the module docs).
fn mdl7_rows(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let corpus = common::corpus_next("mdl7");
    // 32 bones × 60 rings × 32 sides: 61 472 vertices, under MDL7's 16-bit vertex indices.
    let synthetic: Vec<(String, Vec<u8>)> = [(true, "mdl7", 4), (false, "mdl7_frames", 4)]
        .into_iter()
        .map(|(skeletal, kind, frames)| {
            let bytes = common::mdl7_tube(32, 60, 32, frames, skeletal).write();
            let mut diag = Diagnostics::new();
            Mdl7::parse_with(&bytes, &skelmap::Limits::default(), &mut diag).expect("valid input");
            assert!(diag.is_empty(), "synthetic {kind}: {diag:?}");
            (
                format!("synthetic_{kind}_{}MB", bytes.len() / 1_000_000),
                bytes,
            )
        })
        .collect();
    for (name, bytes) in corpus.iter().chain(&synthetic) {
        let m = Mdl7::parse(bytes).expect("valid input");
        let weights: usize = m
            .groups()
            .iter()
            .filter_map(|g| g.weights())
            .map(|w| w.iter().map(|(_, _, weights)| weights.len()).sum::<usize>())
            .sum();
        println!(
            "open_validate mdl7/{name}: {} bytes, {} groups, {} bones, {} frames, {weights} weights",
            bytes.len(),
            m.groups().len(),
            m.bones().len(),
            m.num_frames(),
        );
    }
    format_rows(group, "mdl7", &corpus, &synthetic, |bytes| {
        Mdl7::parse(bytes).expect("valid input").num_frames()
    });
}

criterion_group!(benches, open_validate);
criterion_main!(benches);
