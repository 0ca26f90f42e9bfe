//! Writer → parser round trips: every accessor returns exactly what the builder was given.

use skelmap::Parse;
use skelmap::dpm::raw::DPMBONEFLAG_ATTACHMENT;
use skelmap::dpm::{self, Dpm};
use skelmap::synth::{TubeParams, tube};
use skelmap::{SkeletalMesh, Skeleton};

use crate::support::tube_builder;

#[test]
fn header_counts_and_layout_match_the_builder() {
    let b = tube_builder();
    let (bytes, layout) = b.write_with_layout().unwrap();
    let m = Dpm::parse(&bytes).unwrap();
    assert_eq!((m.num_bones(), m.num_meshes(), m.num_frames()), (4, 1, 9));
    assert_eq!((m.num_vertices(), m.num_triangles()), (136, 256));
    assert_eq!(bytes.len() as u64, layout.filesize);
    assert_eq!(m.header().filesize.get() as u64, layout.filesize);
    // dpmodel order: header, bones, meshes, frames, mesh data, poses; all 4-aligned.
    assert_eq!(
        (layout.ofs_bones, layout.ofs_meshs, layout.ofs_frames),
        (80, 240, 296)
    );
    assert_eq!(layout.meshes[0].ofs_verts, 296 + 9 * 68);
    assert!(layout.frame_poses.iter().all(|o| o % 4 == 0));
}

#[test]
fn bones_names_parents_flags_and_lookups() {
    let (bytes, _) = crate::support::tube();
    let m = Dpm::parse(&bytes).unwrap();
    let names: Vec<&[u8]> = m.bones().map(|b| b.name()).collect();
    assert_eq!(names, [&b"root"[..], b"seg1", b"seg2", b"seg3"]);
    let parents: Vec<Option<usize>> = m.bones().map(|b| b.parent()).collect();
    assert_eq!(parents, [None, Some(0), Some(1), Some(2)]);
    assert_eq!(m.bone(3).unwrap().flags(), DPMBONEFLAG_ATTACHMENT);
    assert_eq!(m.attachments().map(|(i, _)| i).collect::<Vec<_>>(), [3]);
    assert_eq!(m.roots().map(|(i, _)| i).collect::<Vec<_>>(), [0]);
    assert_eq!(m.bone_index(b"seg2"), Some(2));
    assert_eq!(m.bone_index(b"SEG2"), None);
    assert_eq!(m.bone_index_ignore_ascii_case(b"SEG2"), Some(2));
    assert_eq!(m.bone_index(b"seg"), None, "look-ups compare whole names");
    assert!(m.bone(4).is_none());
}

#[test]
fn frames_names_poses_and_bounds() {
    let b = tube_builder();
    let bytes = b.write().unwrap();
    let m = Dpm::parse(&bytes).unwrap();
    assert_eq!(m.frame_index(b"bind"), Some(0));
    assert_eq!(m.frame_index(b"wave_8"), Some(8));
    assert_eq!(m.frame_index_ignore_ascii_case(b"WAVE_3"), Some(3));
    for (f, def) in m.frames().zip(&b.frames) {
        assert_eq!(f.name(), def.name.as_slice());
        assert_eq!(f.poses().len(), 4);
        for (bone, pose) in def.poses.iter().enumerate() {
            assert_eq!(f.pose(bone).unwrap(), *pose, "bit-exact pose");
        }
        assert!(f.mins().iter().zip(f.maxs()).all(|(lo, hi)| *lo <= hi));
    }
    // The bind pose is the straight tube: 0 ≤ z ≤ 64, radius 4 around Z.
    let bind = m.frame(0).unwrap();
    assert_eq!(bind.mins()[2], 0.0);
    assert_eq!(bind.maxs()[2], 64.0);
    assert!((bind.yaw_radius() - 4.0).abs() < 1e-5);
    assert_eq!(
        m.maxs()[2],
        64.0,
        "header bounds are the union of frame bounds"
    );
}

#[test]
fn mesh_vertices_texcoords_triangles_and_groups() {
    let b = tube_builder();
    let bytes = b.write().unwrap();
    let m = Dpm::parse(&bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    let def = &b.meshes[0];
    assert_eq!(mesh.shader_name(), b"tube");
    assert_eq!(mesh.vertices().len(), 136);
    for (records, want) in mesh.vertices().zip(&def.vertices) {
        assert_eq!(records.len(), want.len());
        for (r, w) in records.iter().zip(want) {
            assert_eq!(
                (r.bonenum(), r.influence(), r.origin(), r.normal()),
                (w.bone, w.weight, w.origin, w.normal)
            );
        }
    }
    assert_eq!(mesh.texcoords().collect::<Vec<_>>(), def.texcoords);
    assert_eq!(mesh.triangles().collect::<Vec<_>>(), def.triangles);
    assert_eq!(mesh.group_ids().count(), 256);
    assert!(mesh.group_ids().all(|g| g == 0));
}

#[test]
fn bind_pose_rebuilds_the_tube_surface() {
    // Frame 0 is the bind pose: Σ R·origin + influence·t must land on the cylinder of radius 4.
    let bytes = tube(&TubeParams::default()).write().unwrap();
    let m = Dpm::parse(&bytes).unwrap();
    let bind = m.frame(0).unwrap();
    let mut absolute: Vec<[[f32; 4]; 3]> = Vec::new();
    for (i, bone) in m.bones().enumerate() {
        let local = bind.pose(i).unwrap();
        absolute.push(match bone.parent() {
            Some(p) => skelmap::dpm::write::concat(&absolute[p], &local),
            None => local,
        });
    }
    for records in m.mesh(0).unwrap().vertices() {
        let mut p = [0.0f64; 3];
        for r in records {
            let (o, w, mat) = (r.origin(), r.influence(), absolute[r.bonenum() as usize]);
            for k in 0..3 {
                p[k] += f64::from(
                    mat[k][0] * o[0] + mat[k][1] * o[1] + mat[k][2] * o[2] + mat[k][3] * w,
                );
            }
        }
        let radius = (p[0] * p[0] + p[1] * p[1]).sqrt();
        assert!((radius - 4.0).abs() < 1e-4, "vertex at radius {radius}");
    }
}

#[test]
fn builder_refuses_names_longer_than_32_bytes() {
    let mut b = dpm::Builder::default();
    b.bones.push(skelmap::dpm::BoneDef::new(vec![b'x'; 33], -1));
    let e = b.write().unwrap_err();
    assert!(
        matches!(
            e,
            skelmap::Error::Write {
                what: "bone.name",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn views_are_copy_send_and_sync() {
    fn check<T: Copy + Send + Sync>() {}
    check::<Dpm<'static>>();
    check::<skelmap::dpm::Mesh<'static>>();
    check::<skelmap::dpm::Frame<'static>>();
}
