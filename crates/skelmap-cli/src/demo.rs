//! `skelmap demo`: the README's first command. Builds a procedural animated creature with the
//! project's writers, writes it as DPM and as SKM + SKP, validates both, skins every frame
//! with the best kernel, and writes a glTF and a PNG contact sheet of it.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use glam::{Affine3A, Quat, Vec3};
use skelmap_core::asset;
use skelmap_core::dpm::write::Matrix3x4;
use skelmap_core::dpm::{self, FrameDef};
use skelmap_core::model::Pose;
use skelmap_core::pose::Interpolation;
use skelmap_core::skin::{SimdLevel, VertexOrder};
use skelmap_core::{Diagnostics, Error, Model, skm, synth};
use skelmap_export::gltf;
use skelmap_export::render;

use crate::output::Outputs;

/// Frames per named animation.
const CLIP_FRAMES: u32 = 12;

/// The demo creature: an 8-bone tube (1,560 vertices, about 2.9 influences each) with a bind
/// frame and three animations, `wave`, `curl` and `swirl`, of [`CLIP_FRAMES`] frames each.
pub fn creature() -> dpm::Builder {
    let params = synth::TubeParams {
        bones: 8,
        rings_per_bone: 8,
        sides: 24,
        frames: 1,
        segment_length: 12.0,
        radius: 5.0,
        reach: 1.5,
    };
    let mut b = synth::tube(&params);
    let bones = params.bones;
    let pose = |j: u32, rotation: Quat| -> Matrix3x4 {
        let offset = if j == 0 {
            Vec3::ZERO
        } else {
            Vec3::Z * params.segment_length
        };
        let m = Affine3A::from_rotation_translation(rotation, offset);
        let c = m.matrix3;
        let t = m.translation;
        [
            [c.x_axis.x, c.y_axis.x, c.z_axis.x, t.x],
            [c.x_axis.y, c.y_axis.y, c.z_axis.y, t.y],
            [c.x_axis.z, c.y_axis.z, c.z_axis.z, t.z],
        ]
    };
    type Motion = fn(f32, f32) -> Quat;
    let clips: [(&str, Motion); 3] = [
        // A travelling sideways wave.
        ("wave", |phase, j| {
            Quat::from_rotation_x(0.35 * (phase + 0.7 * j).sin())
        }),
        // Every segment bends the same way, in and out.
        ("curl", |phase, _| {
            Quat::from_rotation_y(0.3 * (0.5 - 0.5 * phase.cos()))
        }),
        // A corkscrew: each segment leans a quarter turn further round than its parent.
        ("swirl", |phase, j| {
            let a = phase + 0.8 * j;
            Quat::from_rotation_x(0.3 * a.sin()) * Quat::from_rotation_y(0.3 * a.cos())
        }),
    ];
    b.frames.truncate(1);
    for (name, motion) in clips {
        for k in 0..CLIP_FRAMES {
            let phase = core::f32::consts::TAU * k as f32 / CLIP_FRAMES as f32;
            let poses = (0..bones)
                .map(|j| pose(j, motion(phase, j as f32)))
                .collect();
            b.frames
                .push(FrameDef::new(format!("{name}_{}", k + 1), poses));
        }
    }
    b
}

pub fn run(out: &Path) -> Result<ExitCode, String> {
    if let Some(file) = out.ancestors().find(|a| a.is_file()) {
        return Err(format!(
            "cannot write the demo into {}: {} is a file, not a folder",
            out.display(),
            file.display()
        ));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let fail = |e: Error| format!("demo: {e}");
    let [dpm_path, skm_path, skp_path, glb_path, png_path] =
        ["demo.dpm", "demo.skm", "demo.skp", "demo.glb", "demo.png"].map(|name| out.join(name));
    let mut outputs = Outputs::new();
    for path in [&dpm_path, &skm_path, &skp_path, &glb_path, &png_path] {
        outputs.claim(path)?;
    }

    // DPM, written and opened back from disk.
    let dpm_bytes = creature().write().map_err(fail)?;
    outputs.write(&dpm_path, &dpm_bytes)?;
    let dpm = Model::open(&dpm_path).map_err(fail)?;
    say!(
        "skelmap demo: a procedural {}-bone creature, {} vertices, {} triangles, {} frames",
        dpm.num_bones(),
        dpm.num_vertices(),
        dpm.num_triangles(),
        dpm.num_frames()
    );
    say!(
        "  wrote {} ({} bytes): valid, {} warnings",
        dpm_path.display(),
        dpm_bytes.len(),
        dpm.diagnostics().warnings().len()
    );

    // SKM + SKP, opened back from disk with its skeleton found beside it, as a game would.
    let converted = dpm
        .as_dpm()
        .map(|m| skm::convert::from_dpm(m, &mut Diagnostics::new()))
        .ok_or("demo: the creature did not open as a DPM")?;
    let skm_bytes = converted.skm.write().map_err(fail)?;
    let skp_bytes = converted.skp.write().map_err(fail)?;
    outputs.write(&skm_path, &skm_bytes)?;
    outputs.write(&skp_path, &skp_bytes)?;
    let skm = Model::open(&skm_path).map_err(fail)?;
    say!(
        "  wrote {} ({} bytes) and {} ({} bytes): valid and paired, {} warnings",
        skm_path.display(),
        skm_bytes.len(),
        skp_path.display(),
        skp_bytes.len(),
        skm.diagnostics().warnings().len()
    );

    let names: Vec<String> = dpm
        .clips()
        .iter()
        .map(|g| format!("{} ({} frames)", g.name, g.count))
        .collect();
    say!("  animations: {}", names.join(", "));

    skin_every_frame("DPM", &dpm)?;
    skin_every_frame("SKM", &skm)?;
    check_same(&dpm, &skm)?;

    // glTF and a contact sheet.
    let built = dpm
        .to_asset(&asset::Options::default())
        .map_err(|e| format!("demo: {e}"))?;
    let mut glb = Vec::new();
    gltf::write_glb(&built, &gltf::Options::default(), &mut glb)
        .map_err(|e| format!("demo: {e}"))?;
    outputs.write(&glb_path, &glb)?;
    say!(
        "  wrote {} ({} bytes): {} joints, {} animations",
        glb_path.display(),
        glb.len(),
        built.skeleton.as_ref().map_or(0, |s| s.joints.len()),
        built.clips.len()
    );
    let sheet: Vec<_> = dpm
        .clips()
        .iter()
        .filter(|g| g.count > 1)
        .flat_map(|g| (0..4).map(move |k| (g.first + k * g.count / 4) as usize))
        .map(|frame| {
            dpm.to_asset(&asset::Options {
                frame: Some(frame),
                no_animations: true,
                ..asset::Options::default()
            })
        })
        .collect::<Result<_, _>>()
        .map_err(|e| format!("demo: {e}"))?;
    let image = render::contact_sheet(&sheet, 4, 256, 256).map_err(|e| format!("demo: {e}"))?;
    let png = render::encode_png(image.width, image.height, &image.rgba)
        .map_err(|e| format!("demo: {e}"))?;
    outputs.write(&png_path, &png)?;
    say!(
        "  wrote {} ({} × {}): one row per animation (wave, curl, swirl), 4 frames each",
        png_path.display(),
        image.width,
        image.height
    );
    Ok(ExitCode::SUCCESS)
}

/// Skins every frame of `model` with the prepared kernel at the best SIMD level, repeatedly
/// for about a fifth of a second, and prints the rate (a progress report, not a benchmark:
/// `skelmap bench` and `cargo bench --bench skin` measure).
fn skin_every_frame(label: &str, model: &Model<'_>) -> Result<(), String> {
    let level = SimdLevel::detect();
    let prepared = model.prepare().map_err(|e| format!("demo: {e}"))?;
    let sizes: Vec<usize> = model.meshes().map(|m| m.num_vertices()).collect();
    let n = sizes.iter().copied().max().unwrap_or(0);
    let total: usize = sizes.iter().sum();
    let (mut positions, mut normals) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    let mut pose = Pose::default();
    let frames = model.num_frames();
    let start = Instant::now();
    let mut rounds = 0usize;
    while rounds == 0 || start.elapsed().as_secs_f64() < 0.2 {
        for frame in 0..frames {
            model
                .pose(frame, frame, 0.0, Interpolation::Nlerp, &mut pose)
                .map_err(|e| e.to_string())?;
            for mesh in 0..prepared.num_meshes() {
                prepared
                    .skin(
                        mesh,
                        &pose,
                        level,
                        VertexOrder::Original,
                        &mut positions,
                        &mut normals,
                    )
                    .map_err(|e| e.to_string())?;
            }
        }
        rounds += 1;
    }
    let seconds = start.elapsed().as_secs_f64();
    say!(
        "  {label}: skinned all {frames} frames {rounds} times with the prepared kernel \
         ({level}): {:.0} M vertices/s including sampling",
        (rounds * frames * total) as f64 / seconds.max(1e-9) / 1e6
    );
    Ok(())
}

/// The DPM and its SKM conversion must skin to the same positions on every frame.
fn check_same(dpm: &Model<'_>, skm: &Model<'_>) -> Result<(), String> {
    let mut worst = 0.0f32;
    let (mut a, mut b) = (Pose::default(), Pose::default());
    for frame in 0..dpm.num_frames() {
        dpm.pose(frame, frame, 0.0, Interpolation::Nlerp, &mut a)
            .map_err(|e| e.to_string())?;
        skm.pose(frame, frame, 0.0, Interpolation::Nlerp, &mut b)
            .map_err(|e| e.to_string())?;
        for (ma, mb) in dpm.meshes().zip(skm.meshes()) {
            let n = ma.num_vertices();
            let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
            let (mut r, mut s) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
            dpm.deform(ma.index(), &a, &mut p, &mut q)
                .map_err(|e| e.to_string())?;
            skm.deform(mb.index(), &b, &mut r, &mut s)
                .map_err(|e| e.to_string())?;
            for (x, y) in p.iter().zip(&r) {
                worst = worst.max((Vec3::from(*x) - Vec3::from(*y)).abs().max_element());
            }
        }
    }
    if worst > 1e-3 {
        return Err(format!(
            "demo: the DPM and SKM disagree by {worst} units after conversion"
        ));
    }
    say!("  DPM and SKM skin to the same positions on every frame (largest difference {worst:e})");
    Ok(())
}
