//! SL fixtures shared beyond the format's own tests (the fuzz seeds): a skinned triangle and a
//! two-bone walk.

use skelmap::slmdl::{self, Easing, KeyframeDef};

/// Three skinned vertices in the 48-byte D3D9 layout.
pub fn tri() -> slmdl::MeshBuilder {
    let v = |position, weights, indices, texcoord| slmdl::VertexDef {
        position,
        normal: [0.0, 0.0, 1.0],
        weights,
        indices,
        texcoord,
    };
    slmdl::MeshBuilder::skinned(&[
        v([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0, 1, 2, 3], [0.0, 0.0]),
        v([3.0, 0.0, 4.0], [0.5, 0.25, 0.0], [1, 2, 0, 0], [1.0, 0.0]),
        v([0.0, 2.0, 0.0], [0.2, 0.2, 0.2], [3, 2, 1, 0], [0.0, 1.0]),
    ])
}

/// Two bones, three keyframes at 0, 1 and 2 s: linear, then ease-in, then step.
pub fn walk() -> slmdl::AnimationBuilder {
    let turn = |deg: f32| {
        let h = deg.to_radians() / 2.0;
        [0.0, 0.0, h.sin(), h.cos()]
    };
    let key = |time, easing, deg, x| KeyframeDef {
        time,
        easing,
        bones: vec![(turn(deg), [x, 0.0, 0.0]), (turn(0.0), [1.0; 3])],
    };
    slmdl::AnimationBuilder {
        bones: 2,
        keyframes: vec![
            key(0.0, Easing::Linear, 0.0, 0.0),
            key(1.0, Easing::EaseIn, 90.0, 2.0),
            key(2.0, Easing::Step, 180.0, 4.0),
        ],
    }
}
