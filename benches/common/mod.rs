//! Inputs shared by the benches.

/// Every file of `../shared/corpus/<sub>` as `(file stem, bytes)`, sorted; empty (with a
/// message) when the shared corpus is absent (see `skelmap_testkit`).
#[allow(clippy::unwrap_used)]
pub fn corpus(sub: &str) -> Vec<(String, Vec<u8>)> {
    skelmap_testkit::corpus_files(sub)
        .into_iter()
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// A model's frame-0 bind pose and a mid-animation pose (frames `n/2` and the next, halfway),
/// the latter also laid out as skinning matrices: the pose every skinning bench skins with.
#[allow(dead_code)]
pub struct Posed {
    pub palette: skelmap::pose::Palette,
    pub bind: skelmap::pose::Palette,
    pub matrices: skelmap::skin::SkinMatrices,
}

/// [`Posed`] of `m`.
#[allow(dead_code)]
pub fn posed<'d, S: skelmap::pose::PoseFrames<'d>>(m: &S) -> Posed {
    use skelmap::pose::{self, Interpolation, LocalPose, Palette};
    let frames = m.num_frames();
    let mid = frames / 2;
    let (mut pose, mut palette, mut bind) =
        (LocalPose::default(), Palette::default(), Palette::default());
    pose::sample(m, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    bind.build(m, &pose);
    let next = (mid + 1).min(frames - 1);
    pose::sample(m, mid, next, 0.5, Interpolation::Nlerp, &mut pose);
    palette.build(m, &pose);
    let matrices = skelmap::skin::SkinMatrices::from_palette(&palette);
    Posed {
        palette,
        bind,
        matrices,
    }
}

/// A zeroed buffer of `n + 16` vertices, and the index in it from which `n` vertices start on a
/// 64-byte boundary (as a GPU staging buffer's do): the kernels' outputs in the benches, so
/// that large outputs are streamed (see `skelmap::skin::STREAM_MIN_BYTES`).
#[allow(dead_code)]
pub fn aligned_output(n: usize) -> (Vec<[f32; 3]>, usize) {
    let buffer = vec![[0.0f32; 3]; n + 16];
    // Twelve-byte steps from a four-byte-aligned start reach every multiple of four modulo 64.
    let at = (0..16)
        .find(|k| (buffer.as_ptr() as usize + 12 * k).is_multiple_of(64))
        .unwrap_or(0);
    (buffer, at)
}

/// The memory-read roofline: read every byte once with the widest loads this CPU has
/// (`scan::read_pass`: AVX-512 on the project machine) and sum them, so that a kernel's
/// fraction of it is not flattered by a narrow read.
#[allow(dead_code)]
pub fn byte_sum(bytes: &[u8]) -> u64 {
    skelmap::scan::read_pass(bytes, skelmap::skin::SimdLevel::detect())
}

/// Runs `f` with two rayon threads: on the calling thread when the global pool already has
/// two (as on the 2-vCPU project machine, so a mesh too small to split pays no cross-thread
/// hop, as in a game calling from its own thread), else inside `two` (a two-thread pool).
#[allow(dead_code)]
pub fn on_two_threads<R: Send>(two: &rayon::ThreadPool, f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_num_threads() == 2 {
        f()
    } else {
        two.install(f)
    }
}

/// The synthetic tube of the skinning benches: 32 bones, `sides` vertices per ring,
/// `rings_per_bone` rings per bone, 4 frames (about 2.45 influences per vertex).
#[allow(dead_code, clippy::unwrap_used)]
pub fn synthetic(sides: u32, rings_per_bone: u32) -> Vec<u8> {
    skelmap::synth::tube(&skelmap::synth::TubeParams {
        bones: 32,
        rings_per_bone,
        sides,
        frames: 4,
        reach: 1.25,
        ..skelmap::synth::TubeParams::default()
    })
    .write()
    .unwrap()
}

/// The default limits raised for the 4M-vertex synthetic tube (past the denial-of-service
/// bounds on triangles, vertices, influences and file size).
#[allow(dead_code)]
pub fn big_limits() -> skelmap::Limits {
    skelmap::Limits {
        max_triangles_per_mesh: u32::MAX,
        max_vertices_per_mesh: u32::MAX,
        max_total_influences: u64::MAX,
        max_file_size: u64::MAX,
        ..skelmap::Limits::default()
    }
}
