// Linear blend skinning from skelmap's GPU buffers (`gpu::Mesh`), one invocation per vertex,
// in the arithmetic of the CPU reference `gpu::Mesh::skin_vertex`:
//   M = sum over the influence slots (weight 0 included) of weight / one * palette[joint],
//   position = M * (bind position, 1).
// Joint indices (u8 or u16) and weights (unorm8 or unorm16) arrive as the bytes skelmap
// built, set after set, read here as little-endian 32-bit words.

struct Layout {
    vertices: u32,
    sets: u32,
    joint_bits: u32,
    weight_bits: u32,
}

@group(0) @binding(0) var<uniform> shape: Layout;
@group(0) @binding(1) var<storage, read> positions: array<f32>;
@group(0) @binding(2) var<storage, read> joints: array<u32>;
@group(0) @binding(3) var<storage, read> weights: array<u32>;
// Three rows of [x, y, z, translation] per palette entry.
@group(0) @binding(4) var<storage, read> palette: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> skinned: array<f32>;

// Element `e` of a table of `bits`-bit unsigned integers packed in 32-bit words.
fn unpack(word: u32, e: u32, bits: u32) -> u32 {
    let per_word = 32u / bits;
    let shift = (e % per_word) * bits;
    return (word >> shift) & ((1u << bits) - 1u);
}

fn joint(e: u32) -> u32 {
    return unpack(joints[e / (32u / shape.joint_bits)], e, shape.joint_bits);
}

fn weight(e: u32) -> u32 {
    return unpack(weights[e / (32u / shape.weight_bits)], e, shape.weight_bits);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    if (v >= shape.vertices) {
        return;
    }
    let one = f32((1u << shape.weight_bits) - 1u);
    var r0 = vec4<f32>(0.0);
    var r1 = vec4<f32>(0.0);
    var r2 = vec4<f32>(0.0);
    for (var s = 0u; s < shape.sets; s = s + 1u) {
        for (var k = 0u; k < 4u; k = k + 1u) {
            let e = (s * shape.vertices + v) * 4u + k;
            let j = joint(e);
            let w = f32(weight(e)) / one;
            r0 = r0 + w * palette[3u * j];
            r1 = r1 + w * palette[3u * j + 1u];
            r2 = r2 + w * palette[3u * j + 2u];
        }
    }
    let p = vec4<f32>(positions[3u * v], positions[3u * v + 1u], positions[3u * v + 2u], 1.0);
    skinned[3u * v] = dot(r0, p);
    skinned[3u * v + 1u] = dot(r1, p);
    skinned[3u * v + 2u] = dot(r2, p);
}
