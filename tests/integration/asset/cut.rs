//! `Influences::cut`: the subset of influences whose largest error over the frames is
//! smallest, against a brute force computed here; ties at the cut, one frame, and the cap on
//! subsets a vertex.

use skelmap::asset::Influences;
use skelmap::asset::cut::{Heaviest, MAX_CANDIDATES, SkinFrames};
use skelmap::glam::{Affine3A, Vec3};

/// Frames of `joints` joints bound at the identity: frame 0 the bind pose, then per frame
/// each joint's translation along X (`moves[f][j]`).
fn frames(joints: usize, moves: &[Vec<f32>]) -> SkinFrames {
    let binds = vec![Affine3A::IDENTITY; joints];
    SkinFrames::new(&binds, |f, out| {
        out.clear();
        if f == 0 {
            out.resize(joints, Affine3A::IDENTITY);
            return Some(());
        }
        let row = moves.get(f - 1)?;
        out.extend(
            (0..joints)
                .map(|j| Affine3A::from_translation(Vec3::X * row.get(j).copied().unwrap_or(0.0))),
        );
        Some(())
    })
}

/// The largest error over the frames of keeping `subset` (joints) of `weights`, its weights
/// scaled to sum to 1, for a vertex at the origin: by hand, from the translations.
fn error(weights: &[f32], subset: &[usize], moves: &[Vec<f32>]) -> f32 {
    let total: f32 = subset.iter().map(|&j| weights[j]).sum();
    moves
        .iter()
        .map(|row| {
            let full: f32 = weights.iter().zip(row).map(|(w, x)| w * x).sum();
            let kept: f32 = subset.iter().map(|&j| weights[j] * row[j]).sum::<f32>() / total;
            (full - kept).abs()
        })
        .fold(0.0, f32::max)
}

/// Every subset of 4 of `n`, the best by [`error`] (the first listed from the heaviest where
/// errors tie; `weights` are given heaviest first).
fn brute_force(weights: &[f32], moves: &[Vec<f32>]) -> (Vec<usize>, f32) {
    let n = weights.len();
    let mut best = (Vec::new(), f32::INFINITY);
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                for d in c + 1..n {
                    let e = error(weights, &[a, b, c, d], moves);
                    if e < best.1 {
                        best = (vec![a, b, c, d], e);
                    }
                }
            }
        }
    }
    best
}

fn kept(influences: &Influences, v: usize) -> Vec<usize> {
    let mut joints: Vec<usize> = influences.of(v).iter().map(|i| usize::from(i.0)).collect();
    joints.sort_unstable();
    joints
}

/// Joint 4, the lightest, swings far in frame 1 and joint 3 a little: keeping the heaviest
/// four (0..4) misses 1.0 of joint 4's pull; keeping 0, 1, 2, 4 misses 0.0265.
#[test]
fn the_subset_with_the_smallest_largest_error_beats_the_heaviest() {
    let weights = [0.30, 0.25, 0.20, 0.15, 0.10];
    let moves = vec![vec![0.0, 0.0, 0.0, 1.0, 10.0]];
    let (want, want_error) = brute_force(&weights, &moves);
    assert_eq!(want, [0, 1, 2, 4]);
    assert!(
        (want_error - (1.0 / 0.85 - 1.15)).abs() < 1e-6,
        "{want_error}"
    );
    let heaviest_error = error(&weights, &[0, 1, 2, 3], &moves);
    assert!(heaviest_error > 30.0 * want_error, "{heaviest_error}");

    let mut influences = Influences::default();
    influences.push(weights.iter().enumerate().map(|(j, &w)| (j as u16, w)), 0);
    let cut = influences.cut(&[[0.0; 3]], 4, &frames(5, &moves));
    assert_eq!(kept(&cut.influences, 0), want);
    // The kept weights are the source's scaled to sum to 1, largest first.
    let list = cut.influences.of(0);
    assert_eq!(list.iter().map(|i| i.0).collect::<Vec<_>>(), [0, 1, 2, 4]);
    for (&(j, w), want) in list.iter().zip([0.30, 0.25, 0.20, 0.10]) {
        assert!((w - want / 0.85).abs() < 1e-6, "joint {j}: {w}");
    }
    let got = error(
        &weights,
        &list.iter().map(|i| usize::from(i.0)).collect::<Vec<_>>(),
        &moves,
    );
    assert!((got - want_error).abs() < 1e-6);
    assert_eq!(
        (cut.over, cut.changed, cut.capped, cut.heaviest),
        (1, 1, 0, None)
    );
    assert_eq!(cut.frames, 2);
    assert_eq!(
        cut.notes("vertices"),
        [
            "1 vertices had more than 4 influences; the 4 whose largest error over 2 frames is \
          smallest were kept (1 differ from the 4 heaviest)"
        ]
    );
}

/// Joints 2, 3 and 4 weigh a bit-identical 0.1 and two of them fit: the heaviest choice
/// keeps 2 and 3 (lower indices), but joint 4 is the one that moves. Keeping 2 and 4 or 3
/// and 4 errs the same; the tie goes to the first listed from the heaviest, 2 and 4.
#[test]
fn three_identical_weights_at_the_cut_keep_the_one_that_moves() {
    let weights: [f32; 5] = [0.4, 0.3, 0.1, 0.1, 0.1];
    assert_eq!(weights[2].to_bits(), weights[4].to_bits());
    let moves = vec![vec![0.0, 0.0, 0.0, 0.0, 10.0]];
    let (want, want_error) = brute_force(&weights, &moves);
    assert_eq!(want, [0, 1, 2, 4]);
    assert_eq!(
        error(&weights, &[0, 1, 3, 4], &moves).to_bits(),
        want_error.to_bits(),
        "a tie"
    );
    let mut influences = Influences::default();
    influences.push(weights.iter().enumerate().map(|(j, &w)| (j as u16, w)), 0);
    let cut = influences.cut(&[[0.0; 3]], 4, &frames(5, &moves));
    assert_eq!(kept(&cut.influences, 0), want);
    // Where no frame tells them apart, the heaviest stay.
    let still = influences.cut(&[[0.0; 3]], 4, &frames(5, &[vec![0.0; 5]]));
    assert_eq!(kept(&still.influences, 0), [0, 1, 2, 3]);
    assert_eq!(still.changed, 0);
}

/// One frame (here the bind pose) is nothing to choose by: the heaviest four, as `top` gives,
/// and a note that says so.
#[test]
fn one_frame_keeps_the_heaviest() {
    let weights = [0.30, 0.25, 0.20, 0.15, 0.10];
    let mut influences = Influences::default();
    influences.push(weights.iter().enumerate().map(|(j, &w)| (j as u16, w)), 0);
    let cut = influences.cut(&[[0.0; 3]], 4, &frames(5, &[]));
    assert_eq!(cut.frames, 1);
    assert_eq!(cut.heaviest, Some(Heaviest::Frames));
    assert_eq!(cut.influences.of(0), influences.top(0, 4).0.as_slice());
    assert_eq!((cut.over, cut.changed), (1, 0));
    assert_eq!(
        cut.notes("vertices"),
        [
            "1 vertices had more than 4 influences; their 4 heaviest were kept (1 frames: no \
          motion to choose by)"
        ]
    );
}

/// A vertex of 14 influences has 1001 subsets of 4, past the cap: it keeps its heaviest and
/// the note says why; the vertex beside it is still chosen by error.
#[test]
fn past_the_cap_on_subsets_a_vertex_keeps_its_heaviest_with_a_note() {
    const { assert!(MAX_CANDIDATES < 1001) };
    let mut influences = Influences::default();
    let many: Vec<(u16, f32)> = (0..14u16).map(|j| (j, 20.0 - f32::from(j))).collect();
    influences.push(many.iter().copied(), 0);
    let weights = [0.30, 0.25, 0.20, 0.15, 0.10];
    influences.push(weights.iter().enumerate().map(|(j, &w)| (j as u16, w)), 0);
    // Joint 13, the lightest of the first vertex, moves far: by error it would be kept.
    let mut row = vec![0.0; 14];
    row[13] = 100.0;
    row[4] = 10.0;
    let cut = influences.cut(&[[0.0; 3]; 2], 4, &frames(14, &[row]));
    assert_eq!(kept(&cut.influences, 0), [0, 1, 2, 3]);
    assert_eq!(cut.influences.of(0), influences.top(0, 4).0.as_slice());
    assert_eq!(kept(&cut.influences, 1), [0, 1, 2, 4]);
    assert_eq!((cut.over, cut.changed, cut.capped), (2, 1, 1));
    let notes = cut.notes("vertices");
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(
        notes[1],
        format!(
            "1 vertices have more than {MAX_CANDIDATES} subsets of 4 influences to try; their 4 \
             heaviest were kept"
        )
    );
}
