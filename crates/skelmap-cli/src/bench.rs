//! `skelmap bench FILE`: a quick measurement of one model on this machine.
//!
//! Lines: open + validate (bytes/s over the whole file), pose sampling (ns per bone), and
//! every kernel the format has on 1..N threads, in vertices/s. Kernels run over a batch of
//! instances of the model (about a million vertices in all, one instance per task) so every
//! thread count has work. Each kernel line also gives its input read rate as a fraction of
//! a **read roofline** measured in the same run: summing a buffer as large as the kernel's
//! per-instance input, once per instance, on the same number of threads (so both read the
//! same bytes from the same cache level), with the widest loads the CPU has
//! ([`read_pass`]), so that the fraction does not flatter the kernel. Every figure is the
//! median of three timed slices; a kernel's slices alternate with its read pass's, and its
//! fraction is the median of the three pairs' ratios, so that a burst of load on a shared
//! machine slows both sides of a ratio. Criterion benches (`cargo bench`) remain the
//! reference; this is a quick look.
//!
//! A line is timed only after its kernel ran once on one instance and succeeded, with every
//! output finite: a kernel that refuses its input (dual quaternions on a pose that scales)
//! prints `refused: <reason>` instead of a rate, since timing it would time its early return.
//! A line measured above the read roofline is flagged (`above roofline`): no kernel reads its
//! input faster than a plain read of the same bytes, so such a figure is a measurement to
//! distrust (a kernel that skipped its work), not a result.
//!
//! With `--json` it prints one object instead (`schema/bench.schema.json`): `open` (`gbps`
//! and the plain read of the same bytes, `read_gbps`), `pose` (`file_ns_per_bone`,
//! `baked_ns_per_bone`), `kernels` (each `name`, `layout`, `threads`, then either
//! `vertices_per_s`, `input_gbps`, `roofline_fraction` and `above_roofline`, or `refused`)
//! and, for vertex-animated models, `morph` (`scalar` and `simd`
//! vertices per second on one thread).

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;
use skelmap_core::model::{DeformError, Pose, Records};
use skelmap_core::pose::{Interpolation, LocalPose, Palette, PoseFrames, sample};
use skelmap_core::scan::read_pass;
use skelmap_core::skin::dqs::{DualQuatPalette, deltas};
use skelmap_core::skin::{
    CompactMesh, PreparedMesh, SimdLevel, SkinMatrices, VertexOrder, WeightedRecords,
};
use skelmap_core::{Limits, Model};

use crate::load;

/// Vertices a kernel batch aims for.
const BATCH_VERTICES: usize = 1 << 20;

/// One instance's output positions or normals.
type Points = Vec<[f32; 3]>;

/// What a kernel says when it refuses its input.
type Refusal = String;

/// What a per-mesh step receives: the mesh's index, its positions and normals; it answers
/// the kernel's refusal, if any.
type MeshStep<'a> = dyn Fn(usize, &mut [[f32; 3]], &mut [[f32; 3]]) -> Result<(), Refusal> + 'a;

/// One instance's kernel: fills positions and normals (sized for every mesh, back to back),
/// or says why it refused.
type Kernel<'k> = Box<dyn Fn(&mut [[f32; 3]], &mut [[f32; 3]]) -> Result<(), Refusal> + Sync + 'k>;

/// The fraction of the read roofline above which a line is flagged.
const ROOFLINE: f64 = 1.0;

/// A kernel with its name, the layout it reads and the bytes it reads per instance.
struct Line<'k> {
    name: String,
    layout: &'static str,
    input_bytes: usize,
    kernel: Kernel<'k>,
}

/// What `bench --json` prints.
#[derive(Debug, Serialize)]
struct Report {
    file: String,
    format: String,
    simd: String,
    threads: usize,
    seconds: f64,
    open: OpenReport,
    pose: Option<PoseReport>,
    kernels: Vec<KernelReport>,
    morph: Option<MorphReport>,
}

/// Opening and validating, against a plain read of the same bytes (one thread).
#[derive(Debug, Serialize)]
struct OpenReport {
    bytes: u64,
    gbps: f64,
    read_gbps: f64,
}

/// Sampling a pose and its palette, per bone.
#[derive(Debug, Serialize)]
struct PoseReport {
    file_ns_per_bone: f64,
    baked_ns_per_bone: Option<f64>,
}

/// One kernel on one thread count: its rates, or why it refused.
#[derive(Debug, Serialize)]
struct KernelReport {
    name: String,
    layout: &'static str,
    threads: usize,
    #[serde(flatten)]
    outcome: Outcome,
}

/// A kernel line's figures, or its refusal.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Outcome {
    /// Timed.
    Measured {
        vertices_per_s: f64,
        input_gbps: f64,
        roofline_fraction: f64,
        /// Whether `roofline_fraction` exceeds 1: a figure to distrust.
        above_roofline: bool,
    },
    /// The kernel refused its input (checked once before timing); not timed.
    Refused { refused: Refusal },
}

impl KernelReport {
    /// Vertices per second, 0 for a refused line.
    fn vertices_per_s(&self) -> f64 {
        match self.outcome {
            Outcome::Measured { vertices_per_s, .. } => vertices_per_s,
            Outcome::Refused { .. } => 0.0,
        }
    }
}

/// The morph of a vertex-animated model on one thread: the scalar reference and the best
/// SIMD level.
#[derive(Debug, Serialize)]
struct MorphReport {
    scalar: f64,
    simd: f64,
}

/// Measures the model at `path` for about `seconds` a line and prints the figures: opening,
/// pose sampling, then every kernel line on each thread count.
pub fn run(
    path: &Path,
    seconds: f64,
    companions: &load::Companions,
    json: bool,
) -> Result<ExitCode, String> {
    let seconds = if seconds.is_finite() {
        seconds.clamp(0.01, 60.0)
    } else {
        0.3
    };
    let model = load::open(path, companions)?;
    let threads = rayon::current_num_threads();
    let pools = thread_pools(threads)?;
    if !json {
        say!(
            "skelmap bench {}: {}, {} bytes, SIMD {}, 1..{threads} threads, {seconds} s per \
             line (median of 3 slices)",
            path.display(),
            model.format(),
            model.size(),
            SimdLevel::detect()
        );
    }
    let level = SimdLevel::detect();
    let open = opening(&model, seconds, level, json);
    let pose =
        (model.num_bones() > 0 && model.num_frames() > 0).then(|| sampling(&model, seconds, json));
    let weighted = model.weighted_records().map_err(|e| e.to_string())?;
    let (vertices, lines) = kernels(&model, weighted.as_ref());
    let mut report = Report {
        file: path.display().to_string(),
        format: model.format().to_string(),
        simd: level.to_string(),
        threads,
        seconds,
        open,
        pose,
        kernels: Vec::new(),
        morph: None,
    };
    if vertices == 0 || lines.is_empty() {
        if json {
            print_json(&report)?;
        } else {
            say!("(no skinning or morph kernel for this format)");
        }
        return Ok(ExitCode::SUCCESS);
    }
    report.kernels = timed_lines(&lines, &pools, vertices, seconds, level, json);
    if model.is_vertex_animated() {
        report.morph = Some(morph(&report.kernels));
    }
    if json {
        print_json(&report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One rayon pool of each size from 1 to `threads`, with its size.
fn thread_pools(threads: usize) -> Result<Vec<(usize, rayon::ThreadPool)>, String> {
    (1..=threads)
        .map(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map(|p| (t, p))
                .map_err(|e| format!("cannot start {t} threads: {e}"))
        })
        .collect()
}

/// Opening `model` again from its bytes in memory (companions included: validation alone),
/// beside a read pass over the same bytes with `level` loads; printed unless `json`.
fn opening(model: &Model<'_>, seconds: f64, level: SimdLevel, json: bool) -> OpenReport {
    let files: HashMap<String, &[u8]> = model
        .files()
        .map(|(_, name, bytes)| (name.to_string(), bytes))
        .collect();
    let open = median_rate(seconds, || {
        let opened = Model::resolve(&files, model.path(), &Limits::default());
        std::hint::black_box(opened.is_ok());
    });
    // The same bytes read and summed, with the widest loads this CPU has.
    let bytes: u64 = files.values().map(|b| b.len() as u64).sum();
    let read = median_rate(seconds, || {
        let sum = files
            .values()
            .fold(0u64, |s, b| s.wrapping_add(read_pass(b, level)));
        std::hint::black_box(sum);
    });
    let report = OpenReport {
        bytes,
        gbps: open * bytes as f64 / 1e9,
        read_gbps: read * bytes as f64 / 1e9,
    };
    if !json {
        // Validation reads headers, tables and indices; some formats' payloads (HMP heights,
        // MDL texels) it never touches, so bytes/s over the file is not a read rate.
        say!(
            "open + validate   {:>10.2} µs per open, {:.2} GB/s over the file's bytes \
             (a read pass: {:.2} GB/s)",
            1e6 / open,
            report.gbps,
            report.read_gbps
        );
    }
    report
}

/// Every line on every pool over a batch of instances of `vertices` vertices each, beside
/// the read roofline of its input on the same pool; the table printed unless `json`.
fn timed_lines(
    lines: &[Line<'_>],
    pools: &[(usize, rayon::ThreadPool)],
    vertices: usize,
    seconds: f64,
    level: SimdLevel,
    json: bool,
) -> Vec<KernelReport> {
    let instances = (BATCH_VERTICES / vertices).clamp(1, 4096);
    if !json {
        say!(
            "kernels: {instances} instances × {vertices} vertices; roofline = read pass ({level} \
             loads) over the kernel's input bytes in the same run"
        );
        say!(
            "{:<30} {:>7} {:>14} {:>10} {:>9} {:>10}",
            "kernel",
            "threads",
            "M vertices/s",
            "input GB/s",
            "roofline",
            "µs/frame"
        );
    }
    let mut reports = Vec::new();
    let mut out: Vec<(Points, Points)> =
        vec![(vec![[0.0; 3]; vertices], vec![[0.0; 3]; vertices]); instances];
    for line in lines {
        // Once, before any timing: a refusal, or output that is not a vertex, is reported
        // instead of a rate.
        let checked = out.first_mut().map_or(Ok(()), |(p, n)| {
            (line.kernel)(p, n)?;
            if p.iter().chain(n.iter()).flatten().all(|x| x.is_finite()) {
                Ok(())
            } else {
                Err("it wrote a position or normal that is not finite".to_string())
            }
        });
        if let Err(reason) = checked {
            for (t, _) in pools {
                reports.push(KernelReport {
                    name: line.name.clone(),
                    layout: line.layout,
                    threads: *t,
                    outcome: Outcome::Refused {
                        refused: reason.clone(),
                    },
                });
            }
            if let (false, Some(report)) = (json, reports.last()) {
                say!("{}", row(report, vertices));
            }
            continue;
        }
        for (t, pool) in pools {
            let k = time_line(line, (*t, pool), &mut out, seconds, level);
            if !json {
                say!("{}", row(&k, vertices));
            }
            reports.push(k);
        }
    }
    if !json {
        say_footer(&reports, vertices);
    }
    reports
}

/// One line timed on one pool over the instances `out`, beside the read pass over as many
/// bytes as its input on the same pool. The two alternate, a slice each, three times, and the
/// roofline fraction is the median of each pair's ratio: on a shared machine a burst of load
/// that slows one slice would otherwise put a real kernel above a roofline measured before
/// the burst.
fn time_line(
    line: &Line<'_>,
    (threads, pool): (usize, &rayon::ThreadPool),
    out: &mut [(Points, Points)],
    seconds: f64,
    level: SimdLevel,
) -> KernelReport {
    let (instances, vertices) = (out.len(), out.first().map_or(0, |(p, _)| p.len()));
    let roof = vec![1u8; line.input_bytes.max(1)];
    let mut read = || {
        pool.install(|| {
            let sum = (0..instances)
                .into_par_iter()
                .map(|_| read_pass(&roof, level))
                .reduce(|| 0, u64::wrapping_add);
            std::hint::black_box(sum);
        });
    };
    let mut skin = || {
        pool.install(|| {
            out.par_iter_mut().for_each(|(p, n)| {
                // Checked above; the same input refuses the same way every time.
                let _ = std::hint::black_box((line.kernel)(p, n));
            });
        });
    };
    read();
    skin();
    // Per pair of slices: the kernel's calls per second and its input rate over the read's.
    let (read_bytes, input_bytes) = (
        (instances * roof.len()) as f64,
        (instances * line.input_bytes) as f64,
    );
    let mut rates = [0.0f64; 3];
    let mut fractions = [0.0f64; 3];
    for (rate, fraction) in rates.iter_mut().zip(&mut fractions) {
        let roof_rate = slice_rate(seconds / 3.0, &mut read) * read_bytes;
        *rate = slice_rate(seconds / 3.0, &mut skin);
        *fraction = *rate * input_bytes / roof_rate.max(1.0);
    }
    let (rate, roofline_fraction) = (median(rates), median(fractions));
    let input = rate * input_bytes;
    KernelReport {
        name: line.name.clone(),
        layout: line.layout,
        threads,
        outcome: Outcome::Measured {
            vertices_per_s: rate * (instances * vertices) as f64,
            input_gbps: input / 1e9,
            roofline_fraction,
            above_roofline: roofline_fraction > ROOFLINE,
        },
    }
}

/// The kernel table's last lines: a warning when a line ran above its roofline, and the
/// fastest line.
fn say_footer(reports: &[KernelReport], vertices: usize) {
    if reports.iter().any(|k| {
        matches!(
            k.outcome,
            Outcome::Measured {
                above_roofline: true,
                ..
            }
        )
    }) {
        say!(
            "above roofline: faster than a plain read of the kernel's input; distrust the \
             figure (the kernel may have skipped its work)"
        );
    }
    if let Some(best) = reports
        .iter()
        .filter(|k| matches!(k.outcome, Outcome::Measured { .. }))
        .max_by(|a, b| a.vertices_per_s().total_cmp(&b.vertices_per_s()))
    {
        say!(
            "best: {} on {} ({:.1} M vertices/s): {:.2} µs per frame of this model's \
             {vertices} vertices",
            best.name,
            crate::summary::count(best.threads as u64, "thread", "threads"),
            best.vertices_per_s() / 1e6,
            frame_micros(vertices, best.vertices_per_s())
        );
    }
}

/// One line of the kernel table for `k`, a kernel over `vertices` vertices an instance: its
/// rates (flagged when above the roofline), or its refusal.
fn row(k: &KernelReport, vertices: usize) -> String {
    match &k.outcome {
        Outcome::Measured {
            vertices_per_s,
            input_gbps,
            roofline_fraction,
            above_roofline,
        } => format!(
            "{:<30} {:>7} {:>14.1} {:>10.2} {:>8.0}% {:>10.2}{}",
            k.name,
            k.threads,
            vertices_per_s / 1e6,
            input_gbps,
            100.0 * roofline_fraction,
            frame_micros(vertices, *vertices_per_s),
            if *above_roofline {
                "  above roofline"
            } else {
                ""
            }
        ),
        Outcome::Refused { refused } => format!("{:<30} refused: {refused}", k.name),
    }
}

/// Microseconds to deform the `vertices` of one frame at `vertices_per_s`.
fn frame_micros(vertices: usize, vertices_per_s: f64) -> f64 {
    1e6 * vertices as f64 / vertices_per_s.max(f64::MIN_POSITIVE)
}

/// The morph's best one-thread rates in `kernels`: the portable deform, and any other.
fn morph(kernels: &[KernelReport]) -> MorphReport {
    let one = |pick: &dyn Fn(&str) -> bool| {
        kernels
            .iter()
            .filter(|k| k.threads == 1 && pick(&k.name))
            .map(KernelReport::vertices_per_s)
            .fold(0.0, f64::max)
    };
    let scalar = one(&|n: &str| n == format!("deform {}", SimdLevel::Portable));
    let simd = one(&|n: &str| n != format!("deform {}", SimdLevel::Portable));
    MorphReport { scalar, simd }
}

/// Prints `report` as pretty JSON.
fn print_json(report: &Report) -> Result<(), String> {
    say!(
        "{}",
        serde_json::to_string_pretty(report).map_err(|e| e.to_string())?
    );
    Ok(())
}

/// Calls per second of `f`: the median of three slices of `seconds / 3` after one warm-up.
fn median_rate(seconds: f64, mut f: impl FnMut()) -> f64 {
    f();
    let mut rates = [0.0f64; 3];
    for rate in &mut rates {
        *rate = slice_rate(seconds / 3.0, &mut f);
    }
    median(rates)
}

/// Calls of `f` a second over one slice of about `seconds` (at least one call).
fn slice_rate(seconds: f64, f: &mut impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed().as_secs_f64() < seconds || calls == 0 {
        f();
        calls += 1;
    }
    calls as f64 / start.elapsed().as_secs_f64().max(1e-9)
}

/// The middle of three figures.
fn median(mut figures: [f64; 3]) -> f64 {
    figures.sort_by(f64::total_cmp);
    figures[1]
}

/// How long sampling and concatenating one pose takes, per bone: straight from the file, and
/// from frames baked once (when the model is small enough to bake); printed unless `json`.
fn sampling(model: &Model<'_>, seconds: f64, json: bool) -> PoseReport {
    let bones = model.num_bones().max(1);
    let frames = model.num_frames().max(1);
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    let mut frame = 0usize;
    let rate = median_rate(seconds, || {
        frame = (frame + 1) % frames;
        model.sample(
            frame,
            (frame + 1) % frames,
            0.5,
            Interpolation::Nlerp,
            &mut pose,
        );
        model.palette(&pose, &mut palette);
        std::hint::black_box(&palette);
    });
    let report = PoseReport {
        file_ns_per_bone: 1e9 / rate / bones as f64,
        baked_ns_per_bone: model
            .bake()
            .ok()
            .map(|baked| baked_ns_per_bone(&baked, seconds)),
    };
    if !json {
        say!(
            "sample + palette  {:>10.1} ns per bone ({bones} bones, between frames)",
            report.file_ns_per_bone
        );
        if let Some(ns) = report.baked_ns_per_bone {
            say!("  from baked frames {ns:>8.1} ns per bone");
        }
    }
    report
}

fn baked_ns_per_bone<'d, S: PoseFrames<'d>>(source: &S, seconds: f64) -> f64 {
    let bones = source.skeleton_bones().len().max(1);
    let frames = source.num_frames().max(1);
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    let mut frame = 0usize;
    let rate = median_rate(seconds, || {
        frame = (frame + 1) % frames;
        sample(
            source,
            frame,
            (frame + 1) % frames,
            0.5,
            Interpolation::Nlerp,
            &mut pose,
        );
        palette.build(source, &pose);
        std::hint::black_box(&palette);
    });
    1e9 / rate / bones as f64
}

/// The vertices per instance and the kernel lines of `model`: for a skeletal model every
/// record kernel (scalar, stream and prepared at each supported level, dual quaternions)
/// over its records (as stored, or `weighted` for a bind-pose format) and the zero-copy
/// deform; for a vertex-animated one the deform (the morph) at each level.
fn kernels<'k>(
    model: &'k Model<'k>,
    weighted: Option<&'k WeightedRecords>,
) -> (usize, Vec<Line<'k>>) {
    let sizes: Vec<usize> = model.meshes().map(|m| m.num_vertices()).collect();
    let offsets: Vec<(usize, usize)> = sizes
        .iter()
        .scan(0usize, |at, &n| {
            *at += n;
            Some((*at - n, n))
        })
        .collect();
    let vertices = sizes.iter().sum::<usize>();
    if vertices == 0 || model.num_frames() == 0 {
        return (0, Vec::new());
    }
    let levels: Vec<SimdLevel> = SimdLevel::ALL
        .into_iter()
        .filter(|l| l.is_supported())
        .collect();
    let b = model.num_frames() / 2;
    let mut now = Pose::default();
    if model
        .pose(b, b, 0.0, Interpolation::Nlerp, &mut now)
        .is_err()
    {
        return (0, Vec::new());
    }
    let setup = Setup {
        model,
        meshes: PerMesh(Arc::new(offsets)),
        now: Arc::new(now),
        levels,
    };
    let mut lines: Vec<Line<'k>> = Vec::new();
    setup.deform_lines(vertices, &mut lines);
    let records: Vec<Records<'k>> = match weighted {
        Some(w) => vec![Records::from(w.mesh())],
        None => (0..sizes.len()).filter_map(|i| model.records(i)).collect(),
    };
    if records.len() != sizes.len() {
        return (vertices, lines);
    }
    let record_bytes: usize = records.iter().map(|r| r.num_records() * 32).sum();
    let records = Arc::new(records);
    setup.record_lines(&records, record_bytes, &mut lines);
    setup.prepared_lines(&records, &mut lines);
    setup.compact_lines(&mut lines);
    lines.push(setup.dqs_line(records, record_bytes));
    (vertices, lines)
}

/// Where each mesh's vertices lie in an instance's outputs: first vertex and count.
#[derive(Clone)]
struct PerMesh(Arc<Vec<(usize, usize)>>);

impl PerMesh {
    /// Calls `f` on each mesh with its part of the outputs `p` and `q`, up to the first
    /// refusal.
    fn each(
        &self,
        p: &mut [[f32; 3]],
        q: &mut [[f32; 3]],
        f: &MeshStep<'_>,
    ) -> Result<(), Refusal> {
        for (i, &(at, n)) in self.0.iter().enumerate() {
            if let (Some(p), Some(q)) = (p.get_mut(at..at + n), q.get_mut(at..at + n)) {
                f(i, p, q)?;
            }
        }
        Ok(())
    }
}

/// The bytes a deform reads per vertex of a mesh stored in its bind pose: its position,
/// normal and four byte influences, as IQM stores them.
const BIND_VERTEX_BYTES: usize = 32;

/// What every kernel line of a model shares.
struct Setup<'k> {
    model: &'k Model<'k>,
    meshes: PerMesh,
    /// The pose skinned: frame `n / 2`.
    now: Arc<Pose>,
    /// The SIMD levels this CPU runs.
    levels: Vec<SimdLevel>,
}

impl<'k> Setup<'k> {
    /// The deform of every mesh of `vertices` in all: the zero-copy deform of a skeletal
    /// model, or the morph at each level.
    fn deform_lines(&self, vertices: usize, lines: &mut Vec<Line<'k>>) {
        let model = self.model;
        // What one deform reads: a morph, two packed frames (4 bytes a vertex; MDL's
        // word-packed frames read 8, so the fraction is if anything too low); a DPM or SKM,
        // its records; a mesh stored in its bind pose (IQM, MS3D, SL, Half-Life, ...), a
        // position, a normal and four byte influences a vertex, 32 bytes, at most the file
        // (not the whole file, whose frames and textures a deform never reads).
        let file_records: usize = (0..self.meshes.0.len())
            .filter_map(|i| model.records(i))
            .map(|r| r.num_records() * 32)
            .sum();
        let deform_bytes = if model.is_vertex_animated() {
            2 * 4 * vertices
        } else if file_records > 0 {
            file_records
        } else {
            (BIND_VERTEX_BYTES * vertices).min(model.size() as usize)
        };
        // A skeletal model's deform once, as `Model::deform` runs it on this CPU (the best
        // level: a DPM's stream kernel, timed at each level below too; an IQM's bind-pose
        // blend sixteen vertices a step); a morph at each level.
        let deform_levels: Vec<SimdLevel> = if model.num_bones() > 0 {
            self.levels.last().copied().into_iter().collect()
        } else {
            self.levels.clone()
        };
        for level in deform_levels {
            let (meshes, now) = (self.meshes.clone(), self.now.clone());
            lines.push(Line {
                name: if model.num_bones() > 0 {
                    "deform".to_string()
                } else {
                    format!("deform {level}")
                },
                layout: if model.num_bones() > 0 {
                    "file"
                } else {
                    "frames"
                },
                input_bytes: deform_bytes,
                kernel: Box::new(move |p, q| {
                    meshes.each(p, q, &|i, p, q| {
                        model
                            .deform_with_level(i, &now, level, p, q)
                            .map_err(|e| e.to_string())
                    })
                }),
            });
        }
    }

    /// The scalar kernel and the stream kernel at each level over `records` (`bytes` in all).
    fn record_lines(
        &self,
        records: &Arc<Vec<Records<'k>>>,
        bytes: usize,
        lines: &mut Vec<Line<'k>>,
    ) {
        {
            let (meshes, now, records) = (self.meshes.clone(), self.now.clone(), records.clone());
            lines.push(Line {
                name: "scalar".into(),
                layout: "records",
                input_bytes: bytes,
                kernel: Box::new(move |p, q| {
                    meshes.each(p, q, &|i, p, q| {
                        records.get(i).map_or(Ok(()), |r| {
                            r.skin_scalar(now.record_palette(), p, q)
                                .map_err(|e| e.to_string())
                        })
                    })
                }),
            });
        }
        for &level in &self.levels {
            let (meshes, now, records) = (self.meshes.clone(), self.now.clone(), records.clone());
            lines.push(Line {
                name: format!("stream {level}"),
                layout: "records",
                input_bytes: bytes,
                kernel: Box::new(move |p, q| {
                    meshes.each(p, q, &|i, p, q| {
                        records.get(i).map_or(Ok(()), |r| {
                            r.skin_stream(now.matrices(), level, p, q)
                                .map_err(|e| e.to_string())
                        })
                    })
                }),
            });
        }
    }

    /// The prepared kernel at each level over `records` prepared once.
    fn prepared_lines(&self, records: &[Records<'k>], lines: &mut Vec<Line<'k>>) {
        let prepared: Arc<Vec<PreparedMesh>> =
            Arc::new(records.iter().map(Records::prepare).collect());
        let prepared_bytes = prepared.iter().map(PreparedMesh::bytes).sum();
        for &level in &self.levels {
            let (meshes, now, prepared) = (self.meshes.clone(), self.now.clone(), prepared.clone());
            lines.push(Line {
                name: format!("prepared {level}"),
                layout: "prepared",
                input_bytes: prepared_bytes,
                kernel: Box::new(move |p, q| {
                    meshes.each(p, q, &|i, p, q| {
                        prepared.get(i).map_or(Ok(()), |mesh| {
                            mesh.skin(now.matrices(), level, VertexOrder::Original, p, q)
                                .map_err(|e| e.to_string())
                        })
                    })
                }),
            });
        }
    }

    /// Where the model compacts and its palette folds: the compact dual-quaternion kernel at
    /// the best level, then the compact kernel at each level.
    fn compact_lines(&self, lines: &mut Vec<Line<'k>>) {
        let Ok(compact) = self.model.compact() else {
            return;
        };
        let mut matrices = SkinMatrices::default();
        if compact.matrices(&self.now, &mut matrices).is_err() {
            return;
        }
        let compact_bytes = (0..compact.num_meshes())
            .filter_map(|i| compact.mesh(i))
            .map(CompactMesh::bytes)
            .sum();
        let mut dual_quats = DualQuatPalette::default();
        // A pose that scales has no dual quaternions: the line refuses, with the reason.
        let refusal = compact
            .dual_quats(&self.now, &mut dual_quats)
            .err()
            .map(|e| e.to_string());
        let (compact, matrices) = (Arc::new(compact), Arc::new(matrices));
        let dual_quats = Arc::new(dual_quats);
        {
            let (meshes, compact, dual_quats) =
                (self.meshes.clone(), compact.clone(), dual_quats.clone());
            let level = SimdLevel::detect();
            lines.push(Line {
                name: format!("compact dqs {level}"),
                layout: "compact",
                input_bytes: compact_bytes,
                kernel: Box::new(move |p, q| {
                    if let Some(reason) = &refusal {
                        return Err(reason.clone());
                    }
                    meshes.each(p, q, &|i, p, q| {
                        compact
                            .skin_dqs(i, &dual_quats, level, p, q)
                            .map_err(|e| e.to_string())
                    })
                }),
            });
        }
        for &level in &self.levels {
            let (meshes, compact, matrices) =
                (self.meshes.clone(), compact.clone(), matrices.clone());
            lines.push(Line {
                name: format!("compact {level}"),
                layout: "compact",
                input_bytes: compact_bytes,
                kernel: Box::new(move |p, q| {
                    meshes.each(p, q, &|i, p, q| {
                        compact
                            .skin(i, &matrices, level, p, q)
                            .map_err(|e| e.to_string())
                    })
                }),
            });
        }
        // Where the layout grouped vertices by the bones they bind, the best level again
        // writing the blocks in their own order (`VertexOrder::Prepared`, drawn through
        // `CompactMesh::remap_triangles`): the difference is what writing file order one
        // vertex at a time costs.
        let grouped = (0..compact.num_meshes())
            .filter_map(|i| compact.mesh(i))
            .any(|m| (0..).zip(m.prepared_order()).any(|(at, v)| at != v));
        if let (true, Some(&level)) = (grouped, self.levels.last()) {
            let (meshes, compact, matrices) = (self.meshes.clone(), compact, matrices);
            lines.push(Line {
                name: format!("compact {level} prepared order"),
                layout: "compact",
                input_bytes: compact_bytes,
                kernel: Box::new(move |p, q| {
                    meshes.each(p, q, &|i, p, q| match compact.mesh(i) {
                        Some(mesh) => mesh
                            .skin(&matrices, level, VertexOrder::Prepared, p, q)
                            .map_err(|e| e.to_string()),
                        None => Err(format!("no mesh {i}")),
                    })
                }),
            });
        }
    }

    /// The scalar dual-quaternion kernel over `records` (`bytes` in all), from the bind pose.
    /// It refuses a pose in which a bone scales relative to the bind pose, as
    /// [`Compact::dual_quats`](skelmap_core::model::Compact::dual_quats) does: [`deltas`]
    /// would drop the scale and the line would time a wrong result.
    fn dqs_line(&self, records: Arc<Vec<Records<'k>>>, bytes: usize) -> Line<'k> {
        let mut bind = Pose::default();
        self.model.pose_bind(&mut bind);
        let refusal = scaling_bone(self.now.record_palette(), bind.record_palette())
            .map(|(bone, scale)| DeformError::Scale { bone, scale }.to_string());
        let dq = deltas(self.now.record_palette(), bind.record_palette());
        let meshes = self.meshes.clone();
        Line {
            name: "dqs".into(),
            layout: "records",
            input_bytes: bytes,
            kernel: Box::new(move |p, q| {
                if let Some(reason) = &refusal {
                    return Err(reason.clone());
                }
                meshes.each(p, q, &|i, p, q| {
                    records.get(i).map_or(Ok(()), |r| {
                        r.skin_dqs(bind.record_palette(), &dq, p, q)
                            .map_err(|e| e.to_string())
                    })
                })
            }),
        }
    }
}

/// Departure from 1 of an axis's length beyond which a transform scales (the tolerance of
/// [`Compact::dual_quats`](skelmap_core::model::Compact::dual_quats)).
const SCALE_TOLERANCE: f32 = 1e-3;

/// The first bone whose `current · bind⁻¹` scales, with the scale of that axis.
fn scaling_bone(current: &Palette, bind: &Palette) -> Option<(usize, f32)> {
    current
        .world
        .iter()
        .zip(&bind.world)
        .enumerate()
        .find_map(|(bone, (now, rest))| {
            let m = (*now * rest.inverse()).matrix3;
            [m.x_axis.length(), m.y_axis.length(), m.z_axis.length()]
                .into_iter()
                .find(|l| (l - 1.0).abs() > SCALE_TOLERANCE)
                .map(|scale| (bone, scale))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(roofline_fraction: f64) -> KernelReport {
        KernelReport {
            name: "compact dqs avx512".into(),
            layout: "compact",
            threads: 1,
            outcome: Outcome::Measured {
                vertices_per_s: 5.6672e10,
                input_gbps: 906.0,
                roofline_fraction,
                above_roofline: roofline_fraction > ROOFLINE,
            },
        }
    }

    /// The flag is the row's, not the timing's: a figure above the read roofline (the 882%
    /// a refused kernel once printed) is marked, one below it is not. (Timing a real kernel
    /// above the roofline cannot be made to happen on purpose, so the row is built.)
    #[test]
    fn a_line_above_the_read_roofline_is_flagged() {
        let above = row(&measured(8.82), 3000);
        assert!(
            above.ends_with("882%       0.05  above roofline"),
            "{above}"
        );
        let below = row(&measured(0.5), 3000);
        assert!(below.ends_with("50%       0.05"), "{below}");
        let json = serde_json::to_value(measured(8.82)).unwrap_or_default();
        assert_eq!(json["above_roofline"], true);
    }

    #[test]
    fn a_refused_line_gives_its_reason_and_no_rate() {
        let k = KernelReport {
            name: "dqs".into(),
            layout: "records",
            threads: 2,
            outcome: Outcome::Refused {
                refused: "bone 2 scales by 1.4".into(),
            },
        };
        assert_eq!(
            row(&k, 8),
            format!("{:<30} refused: bone 2 scales by 1.4", "dqs")
        );
        let json = serde_json::to_value(&k).unwrap_or_default();
        assert_eq!(json["refused"], "bone 2 scales by 1.4");
        assert!(json.get("vertices_per_s").is_none());
    }
}
