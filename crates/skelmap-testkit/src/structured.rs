//! Near-valid files for the `structured` target: a valid file of a chosen shape from the
//! project's writers, with one 32-bit field overwritten.

use arbitrary::Arbitrary;
use skelmap_core::Diagnostics;
use skelmap_core::Parse;
use skelmap_core::dpm::Dpm;
use skelmap_core::gamestudio;
use skelmap_core::gamestudio::write::{MdlFrameDef, SkinDef};
use skelmap_core::ms3d;
use skelmap_core::skm::convert;
use skelmap_core::synth::{TubeParams, tube};

/// Which writer builds the file.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Kind {
    /// A DPM tube.
    Dpm,
    /// The SKM of a converted tube.
    Skm,
    /// The SKP of a converted tube.
    Skp,
    /// An MDL5 grid.
    Mdl,
    /// An MS3D chain.
    Ms3d,
}

/// The shape of the file and the field to corrupt.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub struct Spec {
    /// The format.
    pub kind: Kind,
    /// Bones (1..=8).
    pub bones: u8,
    /// Rings or vertices (1..=8).
    pub size: u8,
    /// Frames (1..=4).
    pub frames: u8,
    /// Offset of the field to overwrite (taken modulo the file length, 4-aligned).
    pub field: u16,
    /// The value written there (little- or big-endian bytes as given).
    pub value: [u8; 4],
}

/// The corrupted file, or `None` if the writer refused the shape.
#[must_use]
pub fn build(spec: &Spec) -> Option<Vec<u8>> {
    let bones = u32::from(spec.bones % 8) + 1;
    let size = u32::from(spec.size % 8) + 1;
    let frames = u32::from(spec.frames % 4) + 1;
    let params = TubeParams {
        bones,
        rings_per_bone: size,
        sides: 3,
        frames,
        ..TubeParams::default()
    };
    let mut bytes = match spec.kind {
        Kind::Dpm => tube(&params).write().ok()?,
        Kind::Skm | Kind::Skp => {
            let dpm = tube(&params).write().ok()?;
            let c = convert::from_dpm(&Dpm::parse(&dpm).ok()?, &mut Diagnostics::new());
            if matches!(spec.kind, Kind::Skm) {
                c.skm.write().ok()?
            } else {
                c.skp.write().ok()?
            }
        }
        Kind::Mdl => {
            let n = size as u16 + 2;
            let frame = |k: u16| MdlFrameDef {
                frame_type: 2,
                name: b"f".to_vec(),
                vertices: (0..n)
                    .map(|i| ([i * 10, k * 5, i], (i % 162) as u8))
                    .collect(),
            };
            gamestudio::MdlBuilder {
                skins: vec![SkinDef {
                    code: 2,
                    width: 8,
                    height: 8,
                    data: vec![7; 128],
                }],
                skin_vertices: vec![[0, 0], [8, 8]],
                triangles: (0..n - 2).map(|i| ([i, i + 1, i + 2], [0, 1, 0])).collect(),
                frames: (0..frames as u16).map(frame).collect(),
                ..gamestudio::MdlBuilder::default()
            }
            .write()
        }
        Kind::Ms3d => {
            let joints = (0..bones)
                .map(|j| ms3d::JointDef {
                    name: format!("j{j}").into_bytes(),
                    parent: if j == 0 {
                        Vec::new()
                    } else {
                        format!("j{}", j - 1).into_bytes()
                    },
                    position: [0.0, 1.0, 0.0],
                    rotation_keys: vec![(0.0, [0.0; 3]), (1.0, [0.5, 0.0, 0.0])],
                    ..ms3d::JointDef::default()
                })
                .collect();
            ms3d::Builder {
                vertices: (0..size)
                    .map(|i| ([i as f32, 0.0, 0.0], (i % bones) as i8))
                    .collect(),
                joints,
                ..ms3d::Builder::default()
            }
            .write()
            .ok()?
        }
    };
    let len = bytes.len();
    if len >= 4 {
        let at = (usize::from(spec.field) % (len / 4)) * 4;
        bytes.get_mut(at..at + 4)?.copy_from_slice(&spec.value);
    }
    Some(bytes)
}
