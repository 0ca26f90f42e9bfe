//! The GameStudio morph: scalar and SIMD tweens agree, on the quad, on every corpus frame and
//! on byte and word frames of every tail length.

use skelmap::Parse;
use skelmap::gamestudio;
use skelmap::gamestudio::Mdl;
use skelmap::gamestudio::morph::{tween_scalar, tween_simd};
use skelmap::gamestudio::write::MdlFrameDef;

use crate::support::gamestudio::quad;

#[test]
fn morph_scalar_and_lanes_agree_and_interpolate() {
    let bytes = quad().write();
    let m = Mdl::parse(&bytes).unwrap();
    let (mut p0, mut n0) = (vec![[0.0; 3]; 4], vec![[0.0; 3]; 4]);
    let (mut p1, mut n1) = (vec![[0.0; 3]; 4], vec![[0.0; 3]; 4]);
    tween_scalar(&m, 0, 1, 0.25, &mut p0, &mut n0).unwrap();
    tween_simd(&m, 0, 1, 0.25, &mut p1, &mut n1).unwrap();
    assert_eq!(p0, p1);
    // Vertex 3: packed (10, 10, 0 → 40); z = 0.25 · (0 + 0.25 · 40) + 1 = 3.5.
    assert_eq!(p0[3], [0.5 * 10.0 - 2.5, 0.5 * 10.0 - 2.5, 3.5]);
    assert!(tween_scalar(&m, 0, 2, 0.0, &mut p0, &mut n0).is_err());
    assert!(tween_scalar(&m, 0, 1, 0.0, &mut p0[..3], &mut n0).is_err());
}

/// Every frame pair `f → f + 1` of `model` at `t` = 0.375, at every level, against the scalar
/// reference: the SIMD kernels do the reference's operations in its order, so the results are
/// the same to the bit.
fn every_level_tweens_like_the_reference(model: &skelmap::Model<'_>, name: &str) {
    use skelmap::model::Pose;
    use skelmap::pose::Interpolation;
    use skelmap::skin::SimdLevel;
    let n = model.mesh(0).unwrap().num_vertices();
    let frames = model.num_frames();
    let mut pose = Pose::default();
    for f in 0..frames {
        model
            .pose(f, (f + 1) % frames, 0.375, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let mut reference = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        model
            .deform_with_level(
                0,
                &pose,
                SimdLevel::Portable,
                &mut reference.0,
                &mut reference.1,
            )
            .unwrap();
        for level in SimdLevel::ALL {
            let mut got = (vec![[1.0; 3]; n], vec![[1.0; 3]; n]);
            model
                .deform_with_level(0, &pose, level, &mut got.0, &mut got.1)
                .unwrap();
            assert!(got == reference, "{name}: frame {f} at {level}");
        }
    }
}

#[test]
fn morph_kernels_agree_on_every_corpus_frame() {
    for path in crate::support::corpus_files("mdl")
        .into_iter()
        .chain(crate::support::corpus_files("mdl_quake"))
    {
        let bytes = std::fs::read(&path).unwrap();
        let model = skelmap::Model::from_bytes(&bytes).unwrap();
        every_level_tweens_like_the_reference(&model, &path.display().to_string());
    }
}

#[test]
fn morph_kernels_agree_on_byte_and_word_frames_of_every_tail_length() {
    // 0..=40 vertices: no full step, one or two full steps of 8 or 16, and every tail.
    for n in 0..=40u16 {
        for (version, words) in [(3, false), (4, true)] {
            let frame = |shift: u16| MdlFrameDef {
                frame_type: if words { 2 } else { 0 },
                name: b"f".to_vec(),
                vertices: (0..n)
                    .map(|i| {
                        let c = [i * 5 % 256, (i * 11 + shift) % 256, (i * shift) % 256];
                        (if words { c.map(|v| v * 97) } else { c }, (i % 162) as u8)
                    })
                    .collect(),
            };
            let bytes = gamestudio::MdlBuilder {
                version,
                scale: [0.25, 0.5, 2.0],
                triangles: vec![([0, 0, 0], [0, 0, 0])],
                frames: vec![frame(3), frame(7), frame(1)],
                ..gamestudio::MdlBuilder::default()
            }
            .write();
            let Ok(model) = skelmap::Model::from_bytes(&bytes) else {
                assert_eq!(n, 0, "only an empty model is refused");
                continue;
            };
            every_level_tweens_like_the_reference(&model, &format!("{n} vertices, words {words}"));
        }
    }
}
