//! An MDC through the format-neutral API: recognised by content whatever its name, a mesh a
//! surface, frames deformed to the engines' decoding (a base frame plus a compressed one),
//! tags built from their angles and blended orthonormal, materials naming shaders.

use skelmap::glam::Vec3;
use skelmap::mdc::{Builder, Mdc};
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::SimdLevel;
use skelmap::view::TextureNames;
use skelmap::{Format, Model, Parse};

use super::animated;

/// Content decides, not the name: an MDC named `.mdl` or `.md3` opens as an MDC.
#[test]
fn an_mdc_named_otherwise_opens_as_an_mdc() {
    let dir = tempfile::Builder::new()
        .prefix("skelmap-mdc-named-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    for name in ["weapon.mdl", "weapon.md3"] {
        let path = dir.join(name);
        std::fs::write(&path, animated().write()).unwrap();
        let model = Model::open(&path).unwrap();
        assert_eq!(model.format(), Format::Mdc, "{name}");
        assert_eq!((model.num_meshes(), model.num_frames()), (2, 6));
    }
    assert_eq!(
        Format::detect(&animated().write(), Some("mdl")),
        Some(Format::Mdc)
    );
}

#[test]
fn meshes_are_surfaces_with_shader_materials() {
    let bytes = animated().write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(model.is_vertex_animated());
    let names: Vec<_> = model.meshes().map(|m| m.name().to_vec()).collect();
    assert_eq!(names, [b"body".to_vec(), b"cap".to_vec()]);
    assert_eq!(model.num_materials(), 2);
    assert_eq!(model.material(1).unwrap().name, b"models/test/cap");
    assert_eq!(model.conventions().textures, TextureNames::Shaders);
    let frames: Vec<_> = model.frame_names().collect();
    assert_eq!(frames.len(), 6);
    assert_eq!((frames[0], frames[5]), (&b"walk1"[..], &b"walk6"[..]));
    assert_eq!(model.clips()[0].name, "walk");
    // Triangles counter-clockwise: the stored `[0, 2, 1]` reversed.
    let triangle = Builder::triangle().write();
    let model = Model::from_bytes(&triangle).unwrap();
    assert_eq!(model.mesh(0).unwrap().triangle(0), Some([1, 2, 0]));
}

/// Every frame deformed at every SIMD level is the view's decoding (base `xyz / 64` plus the
/// compressed offset); the triangle's frame 1 is its frame 0 moved 0.05 along X with the
/// normal of table entry 0 (+X).
#[test]
fn frames_deform_to_the_decoded_positions_and_normals() {
    let bytes = animated().write();
    let mdc = Mdc::parse(&bytes).unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    for (mesh, s) in mdc.surfaces().iter().enumerate() {
        let n = s.num_vertices();
        let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        for f in 0..mdc.num_frames() {
            model
                .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
            for level in SimdLevel::ALL {
                model
                    .deform_with_level(mesh, &pose, level, &mut p, &mut q)
                    .unwrap();
                for v in 0..n {
                    assert_eq!(p[v], s.position(f, v).unwrap(), "{level:?} {f} {v}");
                    let want = Vec3::from(s.normal(f, v).unwrap());
                    assert!(
                        Vec3::from(q[v]).abs_diff_eq(want, 1e-6),
                        "{level:?} {f} {v}"
                    );
                }
            }
        }
    }
    let bytes = Builder::triangle().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let (mut p, mut q) = ([[0.0f32; 3]; 3], [[0.0f32; 3]; 3]);
    model
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    model.deform(0, &pose, &mut p, &mut q).unwrap();
    assert_eq!(p, [[0.05, 0.0, 0.0], [1.05, 0.0, 0.0], [0.05, 1.0, 0.0]]);
    assert_eq!(q, [[1.0, 0.0, 0.0]; 3]);
}

/// Tags are attachments: origins at 1/64 unit, axes from pitch, yaw and roll as the engines
/// build them (`angles · 360 / 32700` degrees), blended between frames and orthonormal.
#[test]
fn tags_are_attachments_built_from_their_angles() {
    let bytes = Builder::triangle().write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_tags(), 1);
    assert_eq!(model.attachment(0).unwrap().name, b"tag_weapon");
    let at = |frame: usize, p: Vec3| model.tag(frame, 0).unwrap().transform_point3(p);
    // Frame 0: no turn. Frame 1: 8175 units of yaw, a quarter turn about +Z.
    assert!(at(0, Vec3::X).abs_diff_eq(Vec3::new(1.0, 0.0, 1.0), 1e-6));
    assert!(at(1, Vec3::X).abs_diff_eq(Vec3::new(0.0, 1.0, 1.0), 1e-6));
    assert!(at(1, Vec3::Y).abs_diff_eq(Vec3::new(-1.0, 0.0, 1.0), 1e-6));
    assert!(at(1, Vec3::Z).abs_diff_eq(Vec3::new(0.0, 0.0, 2.0), 1e-6));
    // Halfway: an eighth of a turn, orthonormal.
    let mdc = Mdc::parse(&bytes).unwrap();
    let half = mdc.tag_at(0, 1, 0.5, 0).unwrap();
    assert_eq!(half.name, b"tag_weapon");
    assert_eq!(half.origin, [0.0, 0.0, 1.0]);
    let r = core::f32::consts::FRAC_1_SQRT_2;
    let forward = Vec3::from(half.axis[0]);
    assert!(forward.abs_diff_eq(Vec3::new(r, r, 0.0), 1e-6), "{forward}");
    let [x, y, z] = half.axis.map(Vec3::from);
    assert!(x.cross(y).abs_diff_eq(z, 1e-6) && x.dot(y).abs() < 1e-6);
    // Pitch looks down, roll turns about forward: the animated fixture's second tag.
    let b = animated();
    let bytes = b.write();
    let mdc = Mdc::parse(&bytes).unwrap();
    for f in 0..mdc.num_frames() {
        let tag = mdc.tag(f, 1).unwrap();
        let [pitch, _, roll] = b.tags[f][1].angles.map(|a| f32::from(a) * 360.0 / 32700.0);
        let forward = Vec3::from(tag.axis()[0]);
        assert!((forward.z + pitch.to_radians().sin()).abs() < 1e-5);
        let left = Vec3::from(tag.axis()[1]);
        let want = roll.to_radians().sin() * pitch.to_radians().cos();
        assert!((left.z - want).abs() < 1e-5, "frame {f}");
    }
    assert!(mdc.tag_at(0, 6, 0.5, 0).is_none() && mdc.tag_at(0, 1, 0.5, 2).is_none());
}

#[test]
fn the_fixtures_walk_through_every_model_call() {
    for b in [Builder::triangle(), animated(), super::tags_only()] {
        let bytes = b.write();
        let model = Model::from_bytes(&bytes).unwrap();
        assert_eq!(model.format(), Format::Mdc);
        assert!(model.as_mdc().is_some());
        crate::exercise::model(&model);
    }
}
