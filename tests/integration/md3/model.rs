//! An MD3 through the format-neutral API: recognised by content whatever its name, a mesh a
//! surface, frames tweened by the morph kernel (positions at 1/64 unit, normals from latitude
//! and longitude), materials naming shaders.

use skelmap::md3::Builder;
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::SimdLevel;
use skelmap::skin::morph::lat_long_normal;
use skelmap::view::TextureNames;
use skelmap::{Format, Model, Parse};

use super::animated;

/// Six of Xonotic's nineteen `.mdl` files are MD3s: the content decides.
#[test]
fn an_md3_named_mdl_opens_as_an_md3() {
    let dir = tempfile::Builder::new()
        .prefix("skelmap-md3-named-mdl-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let path = dir.join("weapon.mdl");
    std::fs::write(&path, animated().write()).unwrap();
    let model = Model::open(&path).unwrap();
    assert_eq!(model.format(), Format::Md3);
    assert_eq!((model.num_meshes(), model.num_frames()), (2, 3));
    assert!(model.as_md3().is_some());
    assert_eq!(
        Format::detect(&animated().write(), Some("mdl")),
        Some(Format::Md3)
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
    assert_eq!(frames, [&b"walk1"[..], b"walk2", b"walk3"]);
    assert_eq!(model.clips()[0].name, "walk");
    // Triangles counter-clockwise: the stored `[0, 2, 1]` reversed.
    let triangle = Builder::triangle().write();
    let model = Model::from_bytes(&triangle).unwrap();
    assert_eq!(model.mesh(0).unwrap().triangle(0), Some([1, 2, 0]));
}

/// Frame `f` deformed is the stored `xyz / 64` and the decoded normal, at every level; a
/// blend lands between.
#[test]
fn frames_deform_to_the_stored_positions_and_normals() {
    let b = animated();
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    for (mesh, surface) in b.surfaces.iter().enumerate() {
        let n = surface.st.len();
        let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        for (f, frame) in surface.frames.iter().enumerate() {
            model
                .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
            for level in SimdLevel::ALL {
                model
                    .deform_with_level(mesh, &pose, level, &mut p, &mut q)
                    .unwrap();
                for (v, (xyz, normal)) in frame.iter().enumerate() {
                    assert_eq!(p[v], xyz.map(|c| f32::from(c) / 64.0));
                    let want = lat_long_normal(*normal);
                    let len = (want.iter().map(|c| c * c).sum::<f32>()).sqrt();
                    for k in 0..3 {
                        assert!((q[v][k] - want[k] / len).abs() < 1e-6, "{level:?} {v}");
                    }
                }
            }
        }
        model
            .pose(0, 2, 0.25, Interpolation::Nlerp, &mut pose)
            .unwrap();
        model.deform(mesh, &pose, &mut p, &mut q).unwrap();
        for (v, got) in p.iter().enumerate() {
            let (a, c) = (surface.frames[0][v].0, surface.frames[2][v].0);
            for k in 0..3 {
                let (x, y) = (f32::from(a[k]), f32::from(c[k]));
                let want = (x + 0.25 * (y - x)) / 64.0;
                assert!((got[k] - want).abs() < 1e-5);
            }
        }
    }
}

/// The lat/long table: the eight octant directions and a unit length everywhere.
#[test]
fn lat_long_normals_are_unit_and_point_where_ioquake3_says() {
    for normal in 0..=u16::MAX {
        let n = lat_long_normal(normal);
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        assert!((len - 1.0).abs() < 1e-6, "{normal:#06x}: {len}");
    }
    // Latitude (high byte) a quarter turn, longitude a quarter turn: +Y.
    let n = lat_long_normal(0x4040);
    assert!(n[0].abs() < 1e-7 && (n[1] - 1.0).abs() < 1e-7 && n[2].abs() < 1e-7);
    // Longitude half a turn: straight down.
    assert_eq!(lat_long_normal(0x0080), [-0.0, -0.0, -1.0]);
}

/// Tags between frames: origins blended, axes orthonormal at every blend, the stored tags at
/// the ends.
#[test]
fn tags_blend_between_frames_with_orthonormal_axes() {
    let b = animated();
    let bytes = b.write();
    let md3 = skelmap::md3::Md3::parse(&bytes).unwrap();
    assert_eq!(md3.num_tags(), 2);
    for (a, c) in [(0, 1), (1, 2), (2, 0)] {
        for step in 0..=8 {
            let t = step as f32 / 8.0;
            let pose = md3.tag_at(a, c, t, 0).unwrap();
            assert_eq!(pose.name, b"tag_weapon");
            let (oa, oc) = (b.tags[a][0].origin, b.tags[c][0].origin);
            for k in 0..3 {
                assert!((pose.origin[k] - (oa[k] + t * (oc[k] - oa[k]))).abs() < 1e-6);
            }
            let x = pose.axis;
            let dot = |i: usize, j: usize| (0..3).map(|k| x[i][k] * x[j][k]).sum::<f32>();
            for i in 0..3 {
                for j in 0..3 {
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!((dot(i, j) - want).abs() < 1e-5, "{a}→{c} at {t}: {x:?}");
                }
            }
            if step == 0 || step == 8 {
                let stored = b.tags[if step == 0 { a } else { c }][0].axis;
                for (r, s) in x.iter().flatten().zip(stored.iter().flatten()) {
                    assert!((r - s).abs() < 1e-6);
                }
            }
        }
    }
    assert!(md3.tag_at(0, 3, 0.5, 0).is_none() && md3.tag_at(0, 1, 0.5, 2).is_none());
}
