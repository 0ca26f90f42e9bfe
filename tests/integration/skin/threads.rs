//! Large meshes: split over threads, and large outputs streamed with non-temporal stores, by
//! the compact and the prepared kernels, into the same bytes as one thread and ordinary stores.

use skelmap::Parse;
use skelmap::dpm::Dpm;
use skelmap::pose::{self, Interpolation, LocalPose, Palette};
use skelmap::skin::{PARALLEL_MIN_VERTICES, PreparedMesh, SimdLevel, SkinMatrices, VertexOrder};
use skelmap::synth::TubeParams;

use crate::support::{levels, zeros};

use super::{tube_case, tube_dpm};

/// A tube of 8 bones, 400 sides and `rings_per_bone` rings per bone (8 · 400 ·
/// `rings_per_bone` vertices), 3 frames: large enough to split over threads, or to stream.
fn wide_tube(rings_per_bone: u32) -> Vec<u8> {
    tube_dpm(&TubeParams {
        bones: 8,
        rings_per_bone,
        sides: 400,
        frames: 3,
        ..TubeParams::default()
    })
}

#[test]
fn a_mesh_large_enough_is_split_over_threads_into_the_same_bytes() {
    let bytes = wide_tube(40);
    let (compact, matrices, _) = tube_case(&bytes);
    let n = compact.num_vertices();
    assert!(n > 2 * PARALLEL_MIN_VERTICES, "{n} vertices");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for level in levels() {
        let (mut one, mut two) = (zeros(n), zeros(n));
        compact
            .skin(
                &matrices,
                level,
                VertexOrder::Original,
                &mut one.0,
                &mut one.1,
            )
            .unwrap();
        pool.install(|| {
            compact.skin_par(
                &matrices,
                level,
                VertexOrder::Original,
                &mut two.0,
                &mut two.1,
            )
        })
        .unwrap();
        assert_eq!(one, two, "{level}");
        // From outside any pool (the calling thread skins a piece, then waits spinning).
        let mut outside = zeros(n);
        compact
            .skin_par(
                &matrices,
                level,
                VertexOrder::Original,
                &mut outside.0,
                &mut outside.1,
            )
            .unwrap();
        assert_eq!(one, outside, "{level}, from outside the pool");
    }
}

/// `n` zeroed positions or normals starting on a 64-byte boundary (`aligned`) or four bytes
/// past one (which no non-temporal store may write).
fn output(n: usize, aligned: bool) -> (Vec<[f32; 3]>, usize) {
    let buffer = vec![[0.0f32; 3]; n + 17];
    let at = (0..16)
        .find(|k| (buffer.as_ptr() as usize + 12 * k).is_multiple_of(64))
        .unwrap();
    // Twelve bytes on from a 64-byte boundary: still 4-byte aligned, never 64-byte aligned.
    (buffer, if aligned { at } else { at + 1 })
}

/// An output of at least `STREAM_MIN_BYTES` (here 16 MiB: 704 000 vertices) is written with
/// non-temporal stores where it starts on a 64-byte boundary, else with ordinary ones: the
/// same bytes either way, on one thread and on two.
#[test]
fn an_output_large_enough_is_streamed_into_the_same_bytes() {
    use skelmap::skin::STREAM_MIN_BYTES;
    let bytes = wide_tube(220);
    let (compact, matrices, _) = tube_case(&bytes);
    let n = compact.num_vertices();
    assert!(n * 24 >= STREAM_MIN_BYTES, "{n} vertices");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let skinned = |aligned: bool, parallel: bool| {
        let ((mut p, at_p), (mut q, at_q)) = (output(n, aligned), output(n, aligned));
        let (p_out, q_out) = (&mut p[at_p..at_p + n], &mut q[at_q..at_q + n]);
        let level = SimdLevel::detect();
        if parallel {
            pool.install(|| compact.skin_par(&matrices, level, VertexOrder::Original, p_out, q_out))
        } else {
            compact.skin(&matrices, level, VertexOrder::Original, p_out, q_out)
        }
        .unwrap();
        (p[at_p..at_p + n].to_vec(), q[at_q..at_q + n].to_vec())
    };
    let plain = skinned(false, false);
    assert!(plain.0.iter().flatten().any(|v| *v != 0.0));
    assert_eq!(skinned(true, false), plain);
    assert_eq!(skinned(true, true), plain);
    assert_eq!(skinned(false, true), plain);
}

/// The prepared kernel streams a large output too (the blocks whose 16 vertices are
/// consecutive, where the output starts on a 64-byte boundary): the same bytes as ordinary
/// stores, in either vertex order, on one thread and on two.
#[test]
fn a_large_prepared_output_is_streamed_into_the_same_bytes() {
    use skelmap::skin::STREAM_MIN_BYTES;
    let bytes = wide_tube(220);
    let m = Dpm::parse(&bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    let prepared = PreparedMesh::new(&mesh);
    let n = prepared.num_vertices();
    assert!(n * 24 >= STREAM_MIN_BYTES, "{n} vertices");
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    pose::sample(&m, 1, 2, 0.3, Interpolation::Nlerp, &mut pose);
    palette.build(&m, &pose);
    let matrices = SkinMatrices::from_palette(&palette);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for order in [VertexOrder::Original, VertexOrder::Prepared] {
        // Threads: 0 the calling one alone, 1 a two-thread pool from inside, 2 the global pool
        // from outside (the output is streamed, so the pool skins every piece).
        let skinned = |aligned: bool, threads: u8| {
            let ((mut p, at_p), (mut q, at_q)) = (output(n, aligned), output(n, aligned));
            let (p_out, q_out) = (&mut p[at_p..at_p + n], &mut q[at_q..at_q + n]);
            let level = SimdLevel::detect();
            match threads {
                0 => prepared.skin(&matrices, level, order, p_out, q_out),
                1 => pool.install(|| prepared.skin_par(&matrices, level, order, p_out, q_out)),
                _ => prepared.skin_par(&matrices, level, order, p_out, q_out),
            }
            .unwrap();
            (p[at_p..at_p + n].to_vec(), q[at_q..at_q + n].to_vec())
        };
        let plain = skinned(false, 0);
        assert!(plain.0.iter().flatten().any(|v| *v != 0.0));
        assert_eq!(skinned(true, 0), plain, "{order:?}");
        for threads in [1, 2] {
            assert_eq!(skinned(true, threads), plain, "{order:?}, {threads}");
            assert_eq!(skinned(false, threads), plain, "{order:?}, {threads}");
        }
    }
}
