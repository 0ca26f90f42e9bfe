//! A real GPU pipeline on skelmap's GPU skinning buffers: for each model given (a synthetic
//! tube when none is), `Model::gpu_mesh` builds the buffers, a wgpu compute pass skins every
//! vertex from them and the frame's palette (`gpu::Mesh::palette`), and the result is read
//! back and held to the CPU reference (`gpu::Mesh::skin_vertex`): the largest distance, over
//! up to eight frames spread over the model's, must be within 1e-4 of the size (the diagonal
//! of the bind-pose bounds). Two choices of buffers are run: 4 influences with `u8` joints
//! and unorm8 weights, and 8 influences (two sets) with `u16` joints and unorm16 weights.
//!
//! ```text
//! cargo run --release --manifest-path examples/wgpu-skinning/Cargo.toml -- [MODEL ...]
//! ```
//!
//! Prints the adapter and one line per model and choice; exits with 1 when a distance is over
//! the tolerance and 2 when there is no adapter (CI installs Mesa's lavapipe).

use std::error::Error;
use std::process::ExitCode;

use skelmap_core::gpu::{self, Buffer, Influences, JointWidth, Precision};
use skelmap_core::model::Pose;
use skelmap_core::pose::Interpolation;
use skelmap_core::{Model, synth};
use wgpu::util::DeviceExt;

/// The largest distance from the CPU reference, as a fraction of the model's size.
const TOLERANCE: f32 = 1e-4;

/// Frames skinned per model, spread over its frames.
const FRAMES: usize = 8;

/// The choices of buffers run on each model.
const CHOICES: [(&str, gpu::Options); 2] = [
    (
        "top4 u8 unorm8",
        gpu::Options {
            influences: Influences::Four,
            precision: Precision::Unorm8,
            joints: JointWidth::U8,
        },
    ),
    (
        "top8 u16 unorm16",
        gpu::Options {
            influences: Influences::Eight,
            precision: Precision::Unorm16,
            joints: JointWidth::U16,
        },
    ),
];

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Whether every model and choice stayed within [`TOLERANCE`].
fn run() -> Result<bool, Box<dyn Error>> {
    let gpu = pollster::block_on(Gpu::new())?;
    let info = gpu.adapter.get_info();
    println!(
        "adapter: {} ({:?}, {:?}, driver {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    );
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let inputs: Vec<(String, Vec<u8>)> = if paths.is_empty() {
        vec![(
            "synthetic tube".to_owned(),
            synth::tube(&synth::TubeParams::default()).write()?,
        )]
    } else {
        paths
            .iter()
            .map(|p| Ok((p.clone(), std::fs::read(p)?)))
            .collect::<Result<_, std::io::Error>>()?
    };
    let mut within = true;
    for (name, bytes) in &inputs {
        let model = Model::from_bytes(bytes)?;
        for (label, options) in &CHOICES {
            let mesh = match model.gpu_mesh(options) {
                Err(gpu::Error::NotSkeletal) => {
                    println!("{name}: no skeleton, nothing to skin");
                    break;
                }
                mesh => mesh?,
            };
            if mesh.positions.is_empty() {
                println!("{name}: no vertices, nothing to skin");
                break;
            }
            let found = gpu.check(&model, &mesh)?;
            let ok = found.reference <= TOLERANCE;
            within &= ok;
            println!(
                "{name} {label}: {} vertices, {} frames; largest distance, as a fraction of \
                 the size, from the CPU reference {:.2e} ({}), from the kernels (`Model::deform`) \
                 {:.2e}",
                mesh.positions.len(),
                found.frames,
                found.reference,
                if ok { "within 1e-4" } else { "OVER 1e-4" },
                found.kernels,
            );
        }
    }
    Ok(within)
}

/// The device and the skinning pipeline.
struct Gpu {
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
}

impl Gpu {
    async fn new() -> Result<Gpu, Box<dyn Error>> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions::default())
            .await?;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("skelmap skinning"),
                required_limits: adapter.limits(),
                ..wgpu::DeviceDescriptor::default()
            })
            .await?;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("skin.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("skin.wgsl").into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("skin"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        Ok(Gpu {
            adapter,
            device,
            queue,
            pipeline,
        })
    }

    /// Skins `mesh` on the GPU at up to [`FRAMES`] frames of `model` and measures the result.
    fn check(&self, model: &Model<'_>, mesh: &gpu::Mesh) -> Result<Found, Box<dyn Error>> {
        let n = mesh.positions.len();
        let sets = mesh.skin.num_sets();
        let joint_bits = match mesh.skin.joints.first() {
            Some(gpu::Joints::U8(_)) => 8u32,
            _ => 16,
        };
        let weight_bits = match mesh.skin.weights.first().map(gpu::Weights::precision) {
            Some(Precision::Unorm8) => 8u32,
            _ => 16,
        };
        let layout = [
            u32::try_from(n)?,
            u32::try_from(sets)?,
            joint_bits,
            weight_bits,
        ];
        let set_bytes = |buffer: fn(usize) -> Buffer| -> Vec<u8> {
            (0..sets)
                .flat_map(|s| mesh.bytes(buffer(s)).unwrap_or_default().iter().copied())
                .collect()
        };
        let storage = |label: &str, contents: &[u8], usage: wgpu::BufferUsages| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                })
        };
        let read = wgpu::BufferUsages::STORAGE;
        let layout = storage(
            "layout",
            bytemuck::cast_slice(&layout),
            wgpu::BufferUsages::UNIFORM,
        );
        let positions = storage(
            "positions",
            mesh.bytes(Buffer::Positions).unwrap_or_default(),
            read,
        );
        let joints = storage("joints", &set_bytes(Buffer::Joints), read);
        let weights = storage("weights", &set_bytes(Buffer::Weights), read);
        let palette_bytes = (mesh.num_joints() + 1) * size_of::<gpu::Matrix3x4>();
        let palette = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("palette"),
            size: palette_bytes as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let out_bytes = (n * 12) as u64;
        let skinned = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skinned"),
            size: out_bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: out_bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skin"),
            layout: &self.pipeline.get_bind_group_layout(0),
            entries: &[
                (0, &layout),
                (1, &positions),
                (2, &joints),
                (3, &weights),
                (4, &palette),
                (5, &skinned),
            ]
            .map(|(binding, buffer)| wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            }),
        });

        let frames = model.num_frames();
        let step = frames.div_ceil(FRAMES).max(1);
        let (mut pose, mut entries) = (Pose::default(), Vec::new());
        let mut found = Found::default();
        let size = mesh.size.max(f32::MIN_POSITIVE);
        for f in (0..frames.max(1)).step_by(step) {
            if frames == 0 {
                model.pose_bind(&mut pose);
            } else {
                model.pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)?;
            }
            mesh.palette(&pose, &mut entries)?;
            let kernels = model
                .meshes()
                .map(|m| {
                    let n = m.num_vertices();
                    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                    model.deform(m.index(), &pose, &mut p, &mut q).map(|()| p)
                })
                .collect::<Result<Vec<_>, _>>()?;
            self.queue
                .write_buffer(&palette, 0, bytemuck::cast_slice(&entries));
            let mut encoder = self.device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                pass.dispatch_workgroups(u32::try_from(n.div_ceil(64))?, 1, 1);
            }
            encoder.copy_buffer_to_buffer(&skinned, 0, &readback, 0, out_bytes);
            self.queue.submit([encoder.finish()]);
            let slice = readback.slice(..);
            let (sender, receiver) = std::sync::mpsc::channel();
            slice.map_async(wgpu::MapMode::Read, move |result| {
                let _ = sender.send(result);
            });
            self.device.poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })?;
            receiver.recv()??;
            {
                let view = slice.get_mapped_range()?;
                let got: &[[f32; 3]] = bytemuck::cast_slice(&view);
                let distance = |a: &[f32; 3], b: &[f32; 3]| {
                    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f32>().sqrt() / size
                };
                for (v, (got, &[m, s])) in got.iter().zip(&mesh.sources).enumerate() {
                    let (want, _) = mesh
                        .skin_vertex(v, &entries)
                        .ok_or("a vertex out of range")?;
                    let exact = kernels
                        .get(m as usize)
                        .and_then(|p| p.get(s as usize))
                        .ok_or("a source vertex out of range")?;
                    found.reference = found.reference.max(distance(got, &want));
                    found.kernels = found.kernels.max(distance(got, exact));
                }
            }
            readback.unmap();
            found.frames += 1;
        }
        Ok(found)
    }
}

/// What [`Gpu::check`] measured: over its frames, the largest distance of a GPU-skinned
/// vertex from the CPU reference and from the model's own kernels, as fractions of the size.
#[derive(Debug, Default)]
struct Found {
    frames: usize,
    reference: f32,
    kernels: f32,
}
