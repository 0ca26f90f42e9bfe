//! MDL7 fixtures: the builder's demo and where the records of a built file lie, computed from
//! the builder's definitions (independently of the reader).

use skelmap::core::mdl7::{self, Builder};

/// The builder's demo: 3 bones (root, middle, top) along Z, one group of 12 vertices in 3
/// rings and 16 triangles, two skins (an external name, an 8×8 RGB565 texture), 4 frames
/// bending bones 1 and 2, a deformer sharing the middle ring between bones 0 and 1.
pub fn demo() -> Builder {
    Builder::demo()
}

/// A boneless two-group model whose frames replace vertices: group 0 is a triangle that
/// frame 1 lifts by 1 in Z (vertex 2 only) and frame 2 lifts entirely; group 1 a triangle
/// with no frames.
pub fn morphing() -> Builder {
    let v = |x: f32, y: f32, z: f32| mdl7::VertexDef {
        position: [x, y, z],
        vertindex: 0xFFFF,
        normal: [0.0, 0.0, 1.0],
    };
    let tri = mdl7::TriangleDef {
        v_index: [0, 1, 2],
        st_index: [0xFFFF; 3],
        material: u32::MAX,
    };
    let lift = |vertices: Vec<mdl7::VertexDef>, name: &str| mdl7::FrameDef {
        name: name.as_bytes().to_vec(),
        vertices,
        transforms: Vec::new(),
    };
    let lifted = |i: u16, z: f32| mdl7::VertexDef {
        vertindex: i,
        ..v(f32::from(i), f32::from(i % 2), z)
    };
    Builder {
        groups: vec![
            mdl7::GroupDef {
                triangles: vec![tri],
                vertices: vec![v(0.0, 0.0, 0.0), v(1.0, 1.0, 0.0), v(2.0, 0.0, 0.0)],
                frames: vec![
                    lift(Vec::new(), "rest"),
                    lift(vec![lifted(2, 1.0)], "lift1"),
                    lift((0..3).map(|i| lifted(i, 1.0)).collect(), "lift2"),
                ],
                ..mdl7::GroupDef::default()
            },
            mdl7::GroupDef {
                triangles: vec![tri],
                vertices: vec![v(5.0, 0.0, 0.0), v(6.0, 1.0, 0.0), v(7.0, 0.0, 0.0)],
                ..mdl7::GroupDef::default()
            },
        ],
        ..Builder::default()
    }
}

/// Where the records of `b`'s file lie.
pub struct Layout {
    /// Each group's head.
    pub groups: Vec<u64>,
    /// Each group's first skin, texture coordinate, triangle, vertex and frame.
    pub skins: Vec<u64>,
    pub texcoords: Vec<u64>,
    pub triangles: Vec<u64>,
    pub vertices: Vec<u64>,
    pub frames: Vec<u64>,
    /// The first deformer.
    pub deformers: u64,
    /// The end of the main data.
    pub end: u64,
}

/// The layout of `b`'s file, from its definitions.
pub fn layout(b: &Builder) -> Layout {
    let mut at = 48 + b.bones.len() as u64 * u64::from(b.sizes.bone);
    let mut l = Layout {
        groups: Vec::new(),
        skins: Vec::new(),
        texcoords: Vec::new(),
        triangles: Vec::new(),
        vertices: Vec::new(),
        frames: Vec::new(),
        deformers: 0,
        end: 0,
    };
    for g in &b.groups {
        l.groups.push(at);
        at += 44;
        l.skins.push(at);
        at += g
            .skins
            .iter()
            .map(|s| 28 + s.payload.len() as u64)
            .sum::<u64>();
        l.texcoords.push(at);
        at += 8 * g.texcoords.len() as u64;
        l.triangles.push(at);
        at += g.triangles.len() as u64 * u64::from(b.sizes.triangle);
        l.vertices.push(at);
        at += g.vertices.len() as u64 * u64::from(b.sizes.vertex);
        l.frames.push(at);
        for f in &g.frames {
            at += 24 + f.vertices.len() as u64 * u64::from(b.sizes.frame_vertex);
            at += 68 * f.transforms.len() as u64;
        }
    }
    l.deformers = at;
    for g in &b.groups {
        if let Some(elements) = &g.weights {
            at += 16;
            at += elements
                .iter()
                .map(|(_, w)| 28 + 8 * w.len() as u64)
                .sum::<u64>();
        }
    }
    l.end = at;
    l
}
