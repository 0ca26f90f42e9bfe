//! The quirks of real IQM files that must open (`docs/formats/iqm.md` § Quirks and decisions),
//! each rebuilt with the writer.

use skelmap::Model;
use skelmap::Parse;
use skelmap::iqm::{self, AnimDef, Iqm, Transform};
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::{Diagnostics, Limits, WarningKind};

use super::warnings;
use crate::support::iqm::{at, demo};
use crate::support::put_u32_le;

fn deformed(bytes: &[u8], frame: usize) -> Vec<[f32; 3]> {
    let model = Model::from_bytes(bytes).unwrap();
    let mut pose = Pose::default();
    model
        .pose(frame, frame, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    model.deform(0, &pose, &mut p, &mut q).unwrap();
    p
}

#[test]
fn a_vertex_without_weights_follows_its_first_blend_index() {
    let mut zero = demo();
    zero.blend_weights[7] = [0; 4];
    let diag = warnings(&zero);
    let w = diag.get(WarningKind::ZeroWeights).expect("warned once");
    assert_eq!(w.count, 1);
    assert!(w.detail.contains("first blend index"), "{}", w.detail);
    // Vertex 7 names joint 2 first, as a vertex weighted 255 to it does.
    let moved = deformed(&zero.write().unwrap(), 3);
    let reference = deformed(&demo().write().unwrap(), 3);
    assert_eq!(moved[7], reference[7]);
    assert_ne!(moved[7], [0.0; 3], "not collapsed to the origin");
}

#[test]
fn vertices_claimed_without_arrays_or_meshes_open_with_no_mesh() {
    let b = iqm::Builder {
        positions: Vec::new(),
        texcoords: Vec::new(),
        normals: Vec::new(),
        blend_indexes: Vec::new(),
        blend_weights: Vec::new(),
        triangles: Vec::new(),
        meshes: Vec::new(),
        ..demo()
    };
    let mut bytes = b.write().unwrap();
    put_u32_le(&mut bytes, at::NUM_VERTEXES, 100);
    let m = Iqm::parse(&bytes).unwrap();
    assert_eq!((m.num_vertices(), m.vertex_arrays().len()), (100, 0));
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!((model.num_meshes(), model.num_bones()), (0, 3));
    assert_eq!(model.clips().len(), 2);
}

#[test]
fn mesh_triangles_may_index_vertices_outside_the_mesh_range() {
    let mut b = demo();
    b.triangles[0] = [0, 1, 5]; // vertex 5 lies in mesh 1's range
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(model.diagnostics().is_empty());
    let submeshes: Vec<Vec<usize>> = model
        .mesh(0)
        .unwrap()
        .submeshes()
        .map(|s| s.triangle_indices().collect())
        .collect();
    assert_eq!(submeshes, [vec![0, 1], vec![2, 3]]);
    assert_eq!(model.mesh(0).unwrap().triangle(0), Some([0, 1, 5]));
}

#[test]
fn frames_without_channels_and_anims_at_rate_zero() {
    let joints = demo().joints;
    let still: Vec<Transform> = joints.iter().map(|j| j.transform).collect();
    let b = iqm::Builder {
        frames: vec![still; 5],
        anims: vec![AnimDef {
            name: b"hold".to_vec(),
            first_frame: 0,
            num_frames: 5,
            framerate: 0.0,
            looped: true,
        }],
        bounds: Vec::new(),
        ..demo()
    };
    let bytes = b.write().unwrap();
    let m = Iqm::parse(&bytes).unwrap();
    assert_eq!((m.num_frames(), m.num_framechannels()), (5, 0));
    let diag = warnings(&b);
    let w = diag.get(WarningKind::FrameRate).expect("rate 0 warned");
    assert!(w.detail.contains("10 frames per second"), "{}", w.detail);
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.clips()[0].fps, 10.0);
    // Every frame is the channels' offsets: the joints' own pose.
    let mut pose = Pose::default();
    model
        .pose(4, 4, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let mut bind = Pose::default();
    model.pose_bind(&mut bind);
    assert_eq!(pose.palette().world, bind.palette().world);
}

#[test]
fn an_animation_only_file_has_unnamed_bones_and_clips() {
    let bytes = crate::support::iqm::animation_only().write().unwrap();
    let mut diag = Diagnostics::new();
    let m = Iqm::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert!(diag.is_empty(), "{:?}", diag.warnings());
    assert_eq!((m.num_joints(), m.num_poses(), m.num_frames()), (0, 3, 4));
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!((model.num_bones(), model.num_meshes()), (3, 0));
    assert_eq!(model.bone(2).unwrap().parent(), Some(1));
    assert!(model.bone(2).unwrap().name().is_empty());
    let names: Vec<_> = model.clips().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["idle", "wave"]);
}

#[test]
fn an_fte_mesh_extension_is_read_past() {
    let b = iqm::Builder {
        extensions: vec![(b"FTE_MESH".to_vec(), vec![0; 28 * 2])],
        ..demo()
    };
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(model.diagnostics().is_empty());
    let ext: Vec<_> = model.as_iqm().unwrap().mesh().extensions().collect();
    assert_eq!((ext[0].name, ext[0].data.len()), (&b"FTE_MESH"[..], 56));
    assert_eq!(deformed(&bytes, 2), deformed(&demo().write().unwrap(), 2));
}
