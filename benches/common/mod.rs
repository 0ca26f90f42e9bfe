//! Inputs shared by the benches.

/// Every file of `../shared/corpus/<sub>` as `(file stem, bytes)`, sorted; empty (with a
/// message) when the shared corpus is absent (see `skelmap_testkit`).
#[allow(clippy::unwrap_used)]
pub fn corpus(sub: &str) -> Vec<(String, Vec<u8>)> {
    skelmap_testkit::corpus_files(sub)
        .into_iter()
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// Every file of `../shared/corpus-engines/<sub>` as `(file stem, bytes)`, sorted; empty (with
/// a message) when it is absent.
#[allow(clippy::unwrap_used, dead_code)]
pub fn corpus_engines(sub: &str) -> Vec<(String, Vec<u8>)> {
    let Some(dir) = skelmap_testkit::corpus_engines_path(sub) else {
        return Vec::new();
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// A model's frame-0 bind pose and a mid-animation pose (frames `n/2` and the next, halfway),
/// the latter also laid out as skinning matrices: the pose every skinning bench skins with.
#[allow(dead_code)]
pub struct Posed {
    pub palette: skelmap::pose::Palette,
    pub bind: skelmap::pose::Palette,
    pub matrices: skelmap::skin::SkinMatrices,
}

/// [`Posed`] of `m`.
#[allow(dead_code)]
pub fn posed<'d, S: skelmap::pose::PoseFrames<'d>>(m: &S) -> Posed {
    use skelmap::pose::{self, Interpolation, LocalPose, Palette};
    let frames = m.num_frames();
    let mid = frames / 2;
    let (mut pose, mut palette, mut bind) =
        (LocalPose::default(), Palette::default(), Palette::default());
    pose::sample(m, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    bind.build(m, &pose);
    let next = (mid + 1).min(frames - 1);
    pose::sample(m, mid, next, 0.5, Interpolation::Nlerp, &mut pose);
    palette.build(m, &pose);
    let matrices = skelmap::skin::SkinMatrices::from_palette(&palette);
    Posed {
        palette,
        bind,
        matrices,
    }
}

/// A zeroed buffer of `n + 16` vertices, and the index in it from which `n` vertices start on a
/// 64-byte boundary (as a GPU staging buffer's do): the kernels' outputs in the benches, so
/// that large outputs are streamed (see `skelmap::skin::STREAM_MIN_BYTES`).
#[allow(dead_code)]
pub fn aligned_output(n: usize) -> (Vec<[f32; 3]>, usize) {
    let buffer = vec![[0.0f32; 3]; n + 16];
    // Twelve-byte steps from a four-byte-aligned start reach every multiple of four modulo 64.
    let at = (0..16)
        .find(|k| (buffer.as_ptr() as usize + 12 * k).is_multiple_of(64))
        .unwrap_or(0);
    (buffer, at)
}

/// The memory-read roofline: read every byte once with the widest loads this CPU has
/// (`scan::read_pass`: AVX-512 on the project machine) and sum them, so that a kernel's
/// fraction of it is not flattered by a narrow read.
#[allow(dead_code)]
pub fn byte_sum(bytes: &[u8]) -> u64 {
    skelmap::scan::read_pass(bytes, skelmap::skin::SimdLevel::detect())
}

/// Runs `f` with two rayon threads: on the calling thread when the global pool already has
/// two (as on the 2-vCPU project machine, so a mesh too small to split pays no cross-thread
/// hop, as in a game calling from its own thread), else inside `two` (a two-thread pool).
#[allow(dead_code)]
pub fn on_two_threads<R: Send>(two: &rayon::ThreadPool, f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_num_threads() == 2 {
        f()
    } else {
        two.install(f)
    }
}

/// The synthetic tube of the skinning benches: 32 bones, `sides` vertices per ring,
/// `rings_per_bone` rings per bone, 4 frames (about 2.45 influences per vertex).
#[allow(dead_code, clippy::unwrap_used)]
pub fn synthetic(sides: u32, rings_per_bone: u32) -> Vec<u8> {
    skelmap::synth::tube(&skelmap::synth::TubeParams {
        bones: 32,
        rings_per_bone,
        sides,
        frames: 4,
        reach: 1.25,
        ..skelmap::synth::TubeParams::default()
    })
    .write()
    .unwrap()
}

/// The default limits raised for the 4M-vertex synthetic tube (past the denial-of-service
/// bounds on triangles, vertices, influences and file size).
#[allow(dead_code)]
pub fn big_limits() -> skelmap::Limits {
    skelmap::Limits {
        max_triangles_per_mesh: u32::MAX,
        max_vertices_per_mesh: u32::MAX,
        max_total_influences: u64::MAX,
        max_file_size: u64::MAX,
        ..skelmap::Limits::default()
    }
}

/// The same skinned tube as an IQM and as a DPM, for comparing the formats on one mesh: a
/// chain of `bones` joints along +Z (bind pose: joint `j` at `z = 16 j`, no rotation), rings
/// of `sides` vertices, `rings_per_bone` rings per joint, every vertex weighted to exactly
/// four consecutive joints (nearest first) by weights in 255ths that sum to 255 (IQM's
/// 8-bit weights, which the DPM stores as the same fractions), and `frames` frames, frame 0
/// the bind pose, the others bending every joint. The DPM's records are each vertex's
/// bind-space position and normal in its joints' frames, weighted; the IQM stores them once,
/// in bind space, with triangles, texture coordinates and normals. `bones` is at least 4.
#[allow(dead_code, clippy::unwrap_used)]
pub fn four_influence_tube(
    bones: u32,
    rings_per_bone: u32,
    sides: u32,
    frames: u32,
) -> (skelmap::iqm::Builder, skelmap::dpm::Builder) {
    use skelmap::glam::{Mat3, Quat};
    use skelmap::{dpm, iqm};
    assert!(bones >= 4, "four influences need four joints");
    const LENGTH: f32 = 16.0;
    const RADIUS: f32 = 4.0;
    let rings = bones * rings_per_bone + 1;
    let mut iqm = iqm::Builder::default();
    let mut dpm = dpm::Builder::default();
    let mut mesh = dpm::MeshDef {
        shader: b"tube".to_vec(),
        ..dpm::MeshDef::default()
    };
    for j in 0..bones {
        let name = format!("joint{j}");
        iqm.joints.push(iqm::JointDef {
            name: name.clone().into_bytes(),
            parent: j as i32 - 1,
            transform: iqm::Transform {
                translate: [0.0, 0.0, if j == 0 { 0.0 } else { LENGTH }],
                ..iqm::Transform::IDENTITY
            },
        });
        dpm.bones.push(dpm::BoneDef::new(name, j as i32 - 1));
    }
    for r in 0..rings {
        let z = r as f32 * LENGTH / rings_per_bone as f32;
        // The joint whose segment holds the ring, and the window of four around it.
        let at = ((z / LENGTH) as u32).min(bones - 1);
        let first = at.saturating_sub(1).min(bones - 4);
        let mut near: Vec<(u32, f32)> = (first..first + 4)
            .map(|j| {
                (
                    j,
                    1.0 / (1.0 + (z - (j as f32 + 0.5) * LENGTH).abs() / LENGTH),
                )
            })
            .collect();
        near.sort_by(|a, b| b.1.total_cmp(&a.1));
        let total: f32 = near.iter().map(|n| n.1).sum();
        // Each weight at least 1/255, the rounding left over given to the largest.
        let mut weights: [u8; 4] = core::array::from_fn(|k| (near[k].1 / total * 251.0) as u8 + 1);
        let sum: u32 = weights.iter().map(|&w| u32::from(w)).sum();
        weights[0] += u8::try_from(255 - sum).unwrap();
        for s in 0..sides {
            let a = core::f32::consts::TAU * s as f32 / sides as f32;
            let (sin, cos) = a.sin_cos();
            let normal = [cos, sin, 0.0];
            iqm.positions.push([RADIUS * cos, RADIUS * sin, z]);
            iqm.normals.push(normal);
            let uv = [s as f32 / sides as f32, 1.0 - r as f32 / (rings - 1) as f32];
            iqm.texcoords.push(uv);
            iqm.blend_indexes
                .push(core::array::from_fn(|k| u8::try_from(near[k].0).unwrap()));
            iqm.blend_weights.push(weights);
            mesh.vertices.push(
                (0..4)
                    .map(|k| {
                        let j = near[k].0;
                        let local = [RADIUS * cos, RADIUS * sin, z - j as f32 * LENGTH];
                        dpm::Influence::weighted(j, f32::from(weights[k]) / 255.0, local, normal)
                    })
                    .collect(),
            );
            mesh.texcoords.push(uv);
        }
    }
    for r in 0..rings - 1 {
        for s in 0..sides {
            let at = |ring: u32, side: u32| ring * sides + side % sides;
            let (a, b, c, d) = (at(r, s), at(r, s + 1), at(r + 1, s), at(r + 1, s + 1));
            mesh.triangles.push([a, b, d]);
            mesh.triangles.push([a, d, c]);
        }
    }
    mesh.group_ids = vec![0; mesh.triangles.len()];
    iqm.triangles.clone_from(&mesh.triangles);
    iqm.meshes.push(iqm::MeshDef {
        name: b"tube".to_vec(),
        material: b"tube".to_vec(),
        first_vertex: 0,
        num_vertexes: u32::try_from(iqm.positions.len()).unwrap(),
        first_triangle: 0,
        num_triangles: u32::try_from(iqm.triangles.len()).unwrap(),
    });
    dpm.meshes.push(mesh);
    for k in 0..frames {
        let phase = core::f32::consts::TAU * k as f32 / (frames - 1).max(1) as f32;
        let mut poses = Vec::new();
        let mut transforms = Vec::new();
        for j in 0..bones {
            let rotation = match (k, j) {
                (0, _) => Quat::IDENTITY,
                (_, 0) => Quat::from_rotation_z(0.1 * phase.sin()),
                _ => Quat::from_rotation_x(0.35 * (phase + 0.7 * j as f32).sin()),
            };
            let z = if j == 0 { 0.0 } else { LENGTH };
            let m = Mat3::from_quat(rotation);
            poses.push(core::array::from_fn(|row| {
                let r = m.row(row);
                [r.x, r.y, r.z, if row == 2 { z } else { 0.0 }]
            }));
            transforms.push(iqm::Transform {
                translate: [0.0, 0.0, z],
                rotate: rotation.to_array(),
                scale: [1.0; 3],
            });
        }
        dpm.frames
            .push(dpm::FrameDef::new(format!("frame{k}"), poses));
        iqm.frames.push(transforms);
    }
    iqm.anims.push(skelmap::iqm::AnimDef {
        name: b"bend".to_vec(),
        first_frame: 0,
        num_frames: frames,
        framerate: 24.0,
        looped: true,
    });
    (iqm, dpm)
}

/// Every file of `../shared/corpus-next/<sub>` as `(file stem, bytes)`, sorted; empty (with a
/// message) when that corpus is absent.
#[allow(dead_code, clippy::unwrap_used)]
pub fn corpus_next(sub: &str) -> Vec<(String, Vec<u8>)> {
    skelmap_testkit::corpus_next_files(sub)
        .into_iter()
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// A tube as an MDL7 of one group: rings of `sides` vertices along +Z, `rings_per_bone` rings
/// per bone length (16 units), `frames` frames, one texture coordinate per vertex and one
/// external skin. The vertex count, `(bones · rings_per_bone + 1) · sides`, must fit MDL7's
/// 16-bit vertex indices.
///
/// - `skeletal`: the skinned player's records (26-byte triangles and vertices, float
///   normals); a chain of `bones` bones (bone `j` at `z = 16 j`), each vertex stored in the
///   bind pose, bound to the bone whose segment holds it and, past the segment's start, to the
///   next one too (weights `1 − f/2` and `f/2`, `f` the fraction of the segment: up to two
///   influences, as [`skelmap::mdl7::Builder::demo`] shares its middle ring), one deformer;
///   frame 0 the bind pose, the others turning every bone about X through its bind position
///   (transforms only, no frame vertices).
/// - otherwise: the ball's records (12-byte triangles, 16-byte vertices with normal-table
///   indices); no bones (`bones` only sets the length); every frame replaces every vertex (the
///   ring pushed out or in by a wave along the tube), as a vertex-animated file does.
#[allow(dead_code, clippy::unwrap_used)]
pub fn mdl7_tube(
    bones: u32,
    rings_per_bone: u32,
    sides: u32,
    frames: u32,
    skeletal: bool,
) -> skelmap::mdl7::Builder {
    use skelmap::mdl7::raw::NONE16;
    use skelmap::mdl7::write::turn_about;
    use skelmap::mdl7::{
        BoneDef, Builder, FrameDef, GroupDef, Sizes, SkinDef, TriangleDef, VertexDef,
    };
    const LENGTH: f32 = 16.0;
    const RADIUS: f32 = 4.0;
    let rings = bones * rings_per_bone + 1;
    assert!(
        rings * sides <= u32::from(u16::MAX),
        "MDL7 indexes vertices with 16 bits"
    );
    let mut group = GroupDef {
        name: b"tube".to_vec(),
        skins: vec![SkinDef::external(b"tube.tga")],
        ..GroupDef::default()
    };
    let mut weights: Vec<Vec<(u32, f32)>> = vec![Vec::new(); bones as usize];
    for r in 0..rings {
        let z = r as f32 * LENGTH / rings_per_bone as f32;
        let at = (r / rings_per_bone).min(bones - 1);
        let f = z / LENGTH - at as f32;
        for s in 0..sides {
            let (sin, cos) = (core::f32::consts::TAU * s as f32 / sides as f32).sin_cos();
            let v = group.vertices.len() as u32;
            group.vertices.push(VertexDef {
                position: [RADIUS * cos, RADIUS * sin, z],
                vertindex: if skeletal { at as u16 } else { NONE16 },
                normal: [cos, sin, 0.0],
            });
            group
                .texcoords
                .push([s as f32 / sides as f32, 1.0 - r as f32 / (rings - 1) as f32]);
            if f > 0.0 && at + 1 < bones {
                weights[at as usize].push((v, 1.0 - f / 2.0));
                weights[at as usize + 1].push((v, f / 2.0));
            } else {
                weights[at as usize].push((v, 1.0));
            }
        }
    }
    for r in 0..rings - 1 {
        for s in 0..sides {
            let at = |ring: u32, side: u32| (ring * sides + side % sides) as u16;
            let (a, b, c, d) = (at(r, s), at(r, s + 1), at(r + 1, s), at(r + 1, s + 1));
            for v_index in [[a, b, d], [a, d, c]] {
                group.triangles.push(TriangleDef {
                    v_index,
                    st_index: v_index,
                    material: 0,
                });
            }
        }
    }
    group.frames = (0..frames)
        .map(|k| {
            let phase = core::f32::consts::TAU * k as f32 / (frames - 1).max(1) as f32;
            let mut frame = FrameDef {
                name: format!("frame{k}").into_bytes(),
                ..FrameDef::default()
            };
            if skeletal {
                frame.transforms = (0..bones)
                    .map(|j| {
                        let degrees = if k == 0 {
                            0.0
                        } else {
                            20.0 * (phase + 0.7 * j as f32).sin()
                        };
                        (j as u16, turn_about([0.0, 0.0, j as f32 * LENGTH], degrees))
                    })
                    .collect();
            } else {
                frame.vertices = group
                    .vertices
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let [x, y, z] = v.position;
                        let scale = 1.0 + 0.2 * (phase + z / LENGTH).sin();
                        VertexDef {
                            position: [x * scale, y * scale, z],
                            vertindex: i as u16,
                            normal: v.normal,
                        }
                    })
                    .collect();
            }
            frame
        })
        .collect();
    let mut builder = Builder {
        sizes: if skeletal {
            Sizes::PLAYER
        } else {
            Sizes::SMALL
        },
        ..Builder::default()
    };
    if skeletal {
        builder.bones = (0..bones)
            .map(|j| BoneDef {
                name: format!("bone{j}").into_bytes(),
                parent: if j == 0 { NONE16 } else { j as u16 - 1 },
                position: [0.0, 0.0, if j == 0 { 0.0 } else { LENGTH }],
            })
            .collect();
        group.max_weights = 2;
        group.weights = Some((0..bones).zip(weights).collect());
    }
    builder.groups.push(group);
    builder
}

/// A Half-Life model of 32 bones and the example's mesh repeated: 2000 vertices, a strip of
/// 80 for each of 40 rows, and two sequences of 60 frames whose every channel holds each
/// value `hold` frames (at 1, a run of values a channel; at 3, twenty runs of one value).
#[allow(dead_code)]
pub fn hl1_grid(hold: i16) -> Vec<u8> {
    use skelmap::hl1::{BoneDef, Builder, CommandDef, SequenceDef, TrivertDef, VertexDef};
    let mut b = Builder::example();
    b.bones = (0..32)
        .map(|i| BoneDef {
            name: format!("bone{i}"),
            parent: i - 1,
            value: [1.0, 0.0, 0.0, 0.0, 0.0, 0.1],
            scale: [0.01; 6],
        })
        .collect();
    let (rows, columns) = (40i16, 50i16);
    let model = &mut b.bodyparts[0].models[0];
    model.vertices = (0..rows * columns)
        .map(|v| VertexDef {
            bone: (v / 63) as u8,
            position: [f32::from(v % columns), f32::from(v / columns), 0.0],
        })
        .collect();
    model.normals = model.vertices.clone();
    let mesh = &mut model.meshes[0];
    mesh.commands = (0..rows - 1)
        .map(|r| CommandDef {
            fan: false,
            vertices: (0..2 * columns)
                .map(|k| {
                    let v = (r + k % 2) * columns + k / 2;
                    TrivertDef {
                        vertex: v,
                        normal: v,
                        s: k / 2,
                        t: r,
                    }
                })
                .collect(),
        })
        .collect();
    model.meshes.truncate(1);
    b.attachments.clear();
    let frames = |shift: i16| -> Vec<Vec<[i16; 6]>> {
        (0..60)
            .map(|f| {
                (0..32)
                    .map(|bone| {
                        core::array::from_fn(|c| (f / hold * 7 + bone * 3 + c as i16 + shift) % 200)
                    })
                    .collect()
            })
            .collect()
    };
    b.sequences = vec![
        SequenceDef {
            label: "a".into(),
            fps: 30.0,
            looping: true,
            group: 0,
            frames: frames(0),
        },
        SequenceDef {
            label: "b".into(),
            fps: 30.0,
            looping: false,
            group: 0,
            frames: frames(50),
        },
    ];
    b.write().expect("writable")
}
