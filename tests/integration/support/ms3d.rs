//! MS3D fixtures shared beyond the format's own tests (the bind-pose tests and the fuzz seeds):
//! a two-joint arm, with and without its optional tail, and its vertices skinned.

use skelmap::ms3d::write::triangle;
use skelmap::ms3d::{self, Ms3d};
use skelmap::pose::Interpolation;

/// A two-joint arm: `root` at the origin, `tip` 10 up Y; four vertices (two per joint), two
/// triangles in one group with one material; `tip` has rotation keys 0 → 90° about Z at 0 s, 1 s.
pub fn arm() -> ms3d::Builder {
    let quarter = core::f32::consts::FRAC_PI_2;
    ms3d::Builder {
        vertices: vec![
            ([1.0, 0.0, 0.0], 0),
            ([-1.0, 0.0, 0.0], 0),
            ([0.0, 20.0, 0.0], 1),
            ([1.0, 20.0, 0.0], 1),
        ],
        triangles: vec![
            triangle(
                [0, 1, 2],
                [0.0, 0.0, 1.0],
                [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
                0,
            ),
            triangle(
                [1, 3, 2],
                [0.0, 0.0, 1.0],
                [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
                0,
            ),
        ],
        groups: vec![ms3d::GroupDef {
            name: b"arm".to_vec(),
            triangles: vec![0, 1],
            material: 0,
        }],
        materials: vec![(b"skin".to_vec(), [1.0, 0.5, 0.25, 1.0])],
        textures: Vec::new(),
        keyframer: (24.0, 0.0, 25),
        joints: vec![
            ms3d::JointDef {
                name: b"root".to_vec(),
                ..ms3d::JointDef::default()
            },
            ms3d::JointDef {
                name: b"tip".to_vec(),
                parent: b"root".to_vec(),
                position: [0.0, 10.0, 0.0],
                rotation_keys: vec![(0.0, [0.0; 3]), (1.0, [0.0, 0.0, quarter])],
                ..ms3d::JointDef::default()
            },
        ],
        tail: ms3d::Tail::default(),
        version: 4,
    }
}

/// The arm with every tail section: comments, sub-version 3 weights, joint colours, settings.
pub fn arm_with_tail() -> ms3d::Builder {
    let mut b = arm();
    b.tail = ms3d::Tail {
        comments: Some((
            [vec![(0, b"arm".to_vec())], vec![], vec![]],
            Some(b"demo".to_vec()),
        )),
        vertex_extra: Some((3, vec![([1, -1, -1], [60, 40, 0]); 4])),
        joint_colors: Some(vec![[1.0, 1.0, 0.0]; 2]),
        model_extra: Some((1.0, 0, 0.5)),
    };
    b
}

/// An MS3D's vertices skinned at `seconds` (at rest with `None`): the keyed pose against the
/// rest pose, by the bind-pose linear blend.
pub fn skinned(m: &Ms3d<'_>, seconds: Option<f32>) -> Vec<[f32; 3]> {
    use skelmap::pose::{LocalPose, Palette};
    let (mut local, mut rest, mut now) =
        (LocalPose::default(), Palette::default(), Palette::default());
    m.local_rest_pose(&mut local);
    rest.build(m, &local);
    if let Some(seconds) = seconds {
        m.local_pose_at(seconds, Interpolation::Slerp, &mut local);
    }
    now.build(m, &local);
    let mut deltas = Vec::new();
    now.relative_to(&rest, &mut deltas);
    let mut out = vec![[0.0; 3]; m.vertices().len()];
    skelmap::skin::bind_positions(m, &deltas, &mut out).unwrap();
    out
}
